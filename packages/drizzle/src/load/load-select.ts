import type { Entity as CoreEntity, EntityManager, ReadOptions } from '@pipeflush/core'
import { queryParamTexts } from '@pipeflush/core'
import { is, type SQL, sql } from 'drizzle-orm'
import { type PgDialect, PgTable } from 'drizzle-orm/pg-core'
import { errors } from '../errors.ts'
import type { SchemaTables } from '../schema/tables.ts'

/** What `load(query)` reads of a Drizzle select builder: its config, as its dialect builds it. */
interface SelectConfig {
  readonly table: unknown
  readonly fields: Record<string, unknown>
  readonly joins?: readonly unknown[] | undefined
  readonly groupBy?: readonly unknown[] | undefined
  readonly having?: unknown | undefined
  readonly setOperators?: readonly unknown[] | undefined
  readonly [other: string]: unknown
}

interface SelectBuilder {
  readonly config?: SelectConfig | undefined
  readonly dialect?: PgDialect | undefined
}

/**
 * Runs a Drizzle select from one table of the schema (`db.select().from(books).where(...)`) and tracks
 * its rows in `em`'s identity map (rows already managed come back as the same objects, with their
 * unflushed changes; removed ones are left out). The select keeps its WHERE, ORDER BY, LIMIT, OFFSET,
 * DISTINCT and locking clauses; its select list is replaced by every column of the table as text
 * (decoded, then mapped to Drizzle's values, as `em.find` does); an ordered DISTINCT select reads the
 * table's rows without DISTINCT (every column selected, the key among them, they are distinct
 * already: a table inheriting from it may add rows of the same key). Its own dialect compiles it; it runs
 * with `em`'s other reads of this tick, in one round trip on one connection of `em`'s client, its
 * parameters sent as text (see `queryParamTexts`). `options.with` reads the rows' relations in the same
 * message, each level selected through the select (it is the root of a graph load: see core's
 * `loadRows`).
 */
export function loadSelect(
  em: EntityManager,
  tables: SchemaTables,
  query: unknown,
  options: ReadOptions = {},
): Promise<CoreEntity[]> {
  const builder = query as SelectBuilder | null
  const config = builder?.config
  const dialect = builder?.dialect
  if (config === undefined || dialect === undefined || typeof dialect.buildSelectQuery !== 'function') {
    fail('expected a select of drizzle-orm/pg-core (db.select().from(table))')
  }
  if ((config.joins?.length ?? 0) > 0) fail('the select must not join other tables')
  if ((config.groupBy?.length ?? 0) > 0 || config.having !== undefined) fail('the select must not group rows')
  if ((config.setOperators?.length ?? 0) > 0)
    fail('the select must not combine selects (union, intersect, except)')
  if (!is(config.table, PgTable)) fail('the select must read a table, not a subquery, a view or SQL')
  const entry = tables.of(config.table)
  const model = em.schema.tables.get(entry.key)
  if (model === undefined) throw errors.untrackedTable(entry.key, 'pipeflush does not track its rows')
  // The columns of the table as the query names it (an alias's columns are qualified by the alias).
  const columns = (config.table as unknown as Record<symbol, Record<string, unknown>>)[COLUMNS]!
  const fields: Record<string, SQL.Aliased> = {}
  model.columns.forEach((column, i) => {
    fields[`c${i}`] = sql`${columns[column.name]}::text`.as(`c${i}`)
  })
  // A DISTINCT (not DISTINCT ON, which picks rows) of an ordered select of a table with a key is
  // dropped: the server refuses an ORDER BY on a column under DISTINCT when the select list, every
  // column as text, does not hold it (`for SELECT DISTINCT, ORDER BY expressions must appear...`), and
  // every column being selected, the key among them, the table's own rows are distinct already.
  const ordered = (config['orderBy'] as readonly unknown[] | undefined)?.length ?? 0
  const dropped = config['distinct'] === true && ordered > 0 && model.primaryKey.length > 0
  const distinct = dropped ? undefined : config['distinct']
  const compiled = dialect.sqlToQuery(
    dialect.buildSelectQuery({ ...config, fields, fieldsFlat: undefined, distinct } as never),
  )
  return em.loadRows(entry.key, { text: compiled.sql, params: queryParamTexts(compiled.params) }, options)
}

/** Drizzle's columns symbol (registered: `Symbol.for`): an alias answers it with its own columns. */
const COLUMNS = Symbol.for('drizzle:Columns')

function fail(why: string): never {
  throw errors.unsupportedQuery('load(query)', why)
}
