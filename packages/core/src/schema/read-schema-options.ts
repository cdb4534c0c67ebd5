import { errors } from '../errors.ts'
import { describeValue } from '../values/location.ts'

/** Options of {@link readSchema}. */
export interface ReadSchemaOptions {
  /** Schemas to read; defaults to the session's search path (`current_schemas(false)`). */
  readonly schemas?: readonly string[] | undefined
  /**
   * Optimistic-lock version columns: one column name used by every table that has such a column, or
   * a map from table key to column name.
   */
  readonly versionColumn?: string | Readonly<Record<string, string>> | undefined
  /**
   * New names for relations derived from the foreign keys, by `table.derivedName`:
   * `{ 'author.books': 'works' }` (see `relationsOf` for the names derived).
   */
  readonly relationNames?: Readonly<Record<string, string>> | undefined
  /**
   * Configuration parameters set in the transaction of every flush and every read batch (`SET LOCAL`,
   * in the same message: no round trip more), for row-level security policies that read them
   * (`current_setting('app.tenant_id')`, a request's JWT claims) or the role they apply to (`role`).
   * They end with the transaction: a pooled connection goes back as it came, so another request never
   * sees them. Names are a word or words joined by dots; values strings, finite numbers or booleans. A
   * read batch outside a locking transaction goes in a transaction of its own to carry them (in the
   * same message). Ids are drawn from sequences with them too, and the schema is read with the
   * connect options': with a `role`, its privileges decide which tables read back
   * what the server fills (a fork's are not: its tables are its parent's).
   *
   * @example
   * const root = await EntityManager.connect(pool, { localSettings: { role: 'authenticated' } })
   * const em = root.fork({ localSettings: { 'request.jwt.claims': JSON.stringify(claims) } })
   */
  readonly localSettings?: Readonly<Record<string, string | number | boolean>> | undefined
  /**
   * How the application names what the catalog holds, when not as the database does: each name read
   * (a schema's, a table's, a column's) to the name tables are keyed by and entities, `where`, options
   * (`versionColumn`, `relationNames`, conflict lists) and errors use. SQL keeps the database's names.
   * `@pipeflush/kysely` gives Kysely's `CamelCasePlugin`'s mapping. Default: the database's names.
   *
   * @example
   * const root = await EntityManager.connect(pool, { names: (name) => name.replace(/_(\w)/g, (_, c) => c.toUpperCase()) })
   * root.fork().create('purchaseLine', { purchaseId: 1, unitPrice: '9.90' }) // purchase_line (purchase_id, unit_price)
   */
  readonly names?: ((name: string) => string) | undefined
}

/**
 * The schema-reading options (`schemas`, `versionColumn`), checked.
 *
 * Bad options are `INVALID_CONFIG` before the catalog is read.
 */
export function readSchemaOption(options: ReadSchemaOptions): ReadSchemaOptions {
  const { schemas, versionColumn } = options
  if (
    schemas !== undefined &&
    (!Array.isArray(schemas) || !schemas.every((s) => typeof s === 'string' && s !== ''))
  ) {
    throw errors.invalidConfig(`schemas must be an array of schema names, not ${describeValue(schemas)}.`)
  }
  const { relationNames, names } = options
  if (names !== undefined && typeof names !== 'function')
    throw errors.invalidConfig(
      `names must be a function from a name in the database to the application's, not ${describeValue(names)}.`,
    )
  if (
    relationNames !== undefined &&
    (typeof relationNames !== 'object' || relationNames === null || Array.isArray(relationNames))
  ) {
    throw errors.invalidConfig(
      `relationNames must be an object of new names by table.relation, not ${describeValue(relationNames)}.`,
    )
  }
  if (versionColumn === undefined || (typeof versionColumn === 'string' && versionColumn !== ''))
    return options
  const byTable =
    typeof versionColumn === 'object' && versionColumn !== null && !Array.isArray(versionColumn)
      ? Object.values(versionColumn)
      : undefined
  if (byTable === undefined || !byTable.every((c) => typeof c === 'string' && c !== '')) {
    throw errors.invalidConfig(
      `versionColumn must be a column name or an object of column names by table, not ${describeValue(versionColumn)}.`,
    )
  }
  return options
}
