import type { TableModel } from '../../model/model.ts'
import { columnSql } from '../../schema/column-sql.ts'
import { quoteIdentifier } from '../../values/identifier.ts'
import { castText } from '../../values/index.ts'
import { type LookupSql, lookupNames, withLookups } from './lookup-sql.ts'
import { returnedList } from './returning-sql.ts'
import { type RowsForm, sourceTexts, unnestSql } from './sql-text.ts'

/**
 * How an upsert's `do update` names the stored row: by its table's name, but for a table named
 * `excluded`, which is also the name `on conflict` gives the row proposed (the name would be ambiguous,
 * 42P09): by an alias its insert gives the table (see {@link insertSql}).
 */
export function storedRowName(table: TableModel): string {
  return table.name === EXCLUDED ? STORED_ALIAS : quoteIdentifier(table.name)
}

const EXCLUDED = 'excluded'
const STORED_ALIAS = '"pf_stored"'

/** The target of an insert: the table, aliased when its name is `excluded` (see {@link storedRowName}). */
function target(table: TableModel): string {
  return table.name === EXCLUDED ? `${table.sqlName} as ${STORED_ALIAS}` : table.sqlName
}

/**
 * The insert of rows supplying `columns` (in table order): one `text[]` parameter per column, cast
 * element-wise (form `rows`), or for a single row one `text` parameter per column (form `row`: `values
 * ($1::text::int8, ...)`). The text is constant for a (table, column set, form), whatever the number of
 * rows. Columns a row does not supply take their DEFAULT, which is why rows of one table supplying
 * different columns go to different statements. `overriding system value` is added when an `identity
 * always` column is supplied. `lookups`: columns a row may take by a lookup on an upserted table's
 * conflict columns, whose values come as extra parameter columns after the written ones (see
 * `lookup-sql.ts`).
 *
 * Rows supplying no column (every column its DEFAULT: a key a non-sequence default fills, a
 * timestamp `now()` fills) have no parameter to count them by: one row is `default values`, `rowCount`
 * rows `select from generate_series(1, rowCount)` (the count in the text, so one text per count).
 */
export function insertSql(
  table: TableModel,
  columns: readonly string[],
  returning: readonly string[] = [],
  form: RowsForm = 'rows',
  lookups: readonly LookupSql[] = [],
  rowCount = 0,
): string {
  const returned = returning.length > 0 ? ` returning ${returnedList(table, returning)}` : ''
  if (columns.length === 0 && lookups.length === 0) {
    const rows = form === 'row' ? 'default values' : `select from generate_series(1, ${rowCount})`
    return `insert into ${target(table)} ${rows}${returned}`
  }
  const models = columns.map((name) => table.columnsByName.get(name)!)
  const overriding = models.some((c) => c.identity === 'always') ? ' overriding system value' : ''
  const list = columns.map((name) => columnSql(table, name)).join(', ')
  const names = lookups.length === 0 ? columns : [...columns, ...lookupNames(table, lookups)]
  const texts = sourceTexts(names, form)
  let cast = models.map((c, i) => castText(texts[i]!, c))
  if (lookups.length > 0) cast = withLookups(table, cast, columns, lookups, texts.slice(columns.length))
  const values = cast.join(', ')
  const rows = form === 'row' ? `values (${values})` : `select ${values} from ${unnestSql(names, 'd')}`
  return `insert into ${target(table)} (${list})${overriding} ${rows}${returned}`
}
