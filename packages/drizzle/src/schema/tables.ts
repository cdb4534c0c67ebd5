import { getTableColumns, is, Table } from 'drizzle-orm'
import { type PgColumn, PgTable } from 'drizzle-orm/pg-core'
import { errors } from '../errors.ts'

/** A table of the application's schema object, as pipeflush keys it. */
export interface SchemaTable {
  /** Its key in the schema object (`books`): the table key of the entity manager, errors and hooks. */
  readonly key: string
  readonly table: PgTable
  /**
   * Its name in the database (`book`) and its schema: its `pgSchema`'s, else the one the search path
   * of the application's connections finds it in, as Drizzle's unqualified SQL does (see
   * {@link SchemaTables}).
   */
  readonly name: string
  readonly schema: string
  /** Its columns by property (`authorId`), in definition order. */
  readonly columns: ReadonlyMap<string, PgColumn>
  /** The property of a column by the name it was declared with (`column.name`), for extra-config columns. */
  readonly propertyOf: ReadonlyMap<string, string>
}

/**
 * The tables of a schema object (the one given to `drizzle(client, { schema })`: tables, relations,
 * enums...), by key, by table object and by database name. Aliases of a table (`alias(books, 'b')`)
 * are found as the table.
 */
export class SchemaTables {
  readonly #byKey = new Map<string, SchemaTable>()
  readonly #byTable = new Map<unknown, SchemaTable>()
  readonly #byUniqueName = new Map<string, SchemaTable>()

  readonly #searchPath: ReadonlyMap<string, string>

  /**
   * `searchPath`: the schema of each table of the schema object without a `pgSchema`, by its name in
   * the database, as the application's connections find it (see {@link unqualifiedNames}); `public`
   * for a name it lacks.
   */
  constructor(
    schema: Readonly<Record<string, unknown>>,
    searchPath: ReadonlyMap<string, string> = new Map(),
  ) {
    this.#searchPath = searchPath
    for (const [key, value] of Object.entries(schema)) {
      if (!is(value, PgTable)) continue
      const table = value as PgTable
      if (this.#byTable.has(table)) {
        throw errors.invalidConfig(
          `the schema holds the table "${nameOf(table)}" under two keys ("${this.#byTable.get(table)!.key}", "${key}")`,
        )
      }
      const columns = new Map(Object.entries(getTableColumns(table)) as [string, PgColumn][])
      const propertyOf = new Map([...columns].map(([property, column]) => [column.name, property]))
      const entry: SchemaTable = {
        key,
        table,
        name: nameOf(table),
        schema: this.#schemaOf(table),
        columns,
        propertyOf,
      }
      this.#byKey.set(key, entry)
      this.#byTable.set(table, entry)
      this.#byUniqueName.set(`${entry.schema}.${entry.name}`, entry)
    }
  }

  /** Every table, in the schema object's order. */
  all(): readonly SchemaTable[] {
    return [...this.#byKey.values()]
  }

  /** The table of `key`, if any. */
  byKey(key: string): SchemaTable | undefined {
    return this.#byKey.get(key)
  }

  /** The schema's entry of `table` (a table object of the schema, or an alias of one); `UNKNOWN_TABLE` otherwise. */
  of(table: unknown): SchemaTable {
    const found = this.find(table)
    if (found === undefined)
      throw errors.unknownTable(is(table, Table) ? nameOf(table as PgTable) : String(table))
    return found
  }

  /** {@link of}, or undefined. */
  find(table: unknown): SchemaTable | undefined {
    const direct = this.#byTable.get(table)
    if (direct !== undefined || !is(table, PgTable)) return direct
    return this.#byUniqueName.get(`${this.#schemaOf(table as PgTable)}.${nameOf(table as PgTable)}`)
  }

  #schemaOf(table: PgTable): string {
    return declaredSchemaOf(table) ?? this.#searchPath.get(nameOf(table)) ?? 'public'
  }
}

// Drizzle's table symbols (registered: `Symbol.for`), which its type declarations do not list.
const NAME = Symbol.for('drizzle:Name')
const ORIGINAL_NAME = Symbol.for('drizzle:OriginalName')
const SCHEMA = Symbol.for('drizzle:Schema')

/** A table's name in the database (an alias's: the table it aliases). */
export function nameOf(table: PgTable): string {
  const t = table as unknown as Record<symbol, unknown>
  return (t[ORIGINAL_NAME] ?? t[NAME]) as string
}

/** A table's `pgSchema`'s name; undefined for a table of `pgTable` (its schema is the search path's). */
function declaredSchemaOf(table: PgTable): string | undefined {
  return (table as unknown as Record<symbol, unknown>)[SCHEMA] as string | undefined
}

/**
 * The names in the database of the tables of a schema object that no `pgSchema` places: Drizzle
 * writes them unqualified, so the search path of the application's connections says which schema
 * they are in.
 */
export function unqualifiedNames(schema: Readonly<Record<string, unknown>>): string[] {
  const names = new Set<string>()
  for (const value of Object.values(schema))
    if (is(value, PgTable) && declaredSchemaOf(value as PgTable) === undefined)
      names.add(nameOf(value as PgTable))
  return [...names]
}
