import type { TableModel } from '../../schema/model.ts'
import { quoteIdentifier } from '../../values/identifier.ts'
import { castText } from '../../values/index.ts'
import { returnedList } from './returning-sql.ts'
import { type RowsForm, sourceTexts, unnestSql } from './sql-text.ts'

/**
 * The insert of rows supplying `columns` (in table order): one `text[]` parameter per column, cast
 * element-wise (form `rows`), or for a single row one `text` parameter per column (form `row`: `values
 * ($1::text::int8, ...)`). The text is constant for a (table, column set, form), whatever the number of
 * rows. Columns a row does not supply take their DEFAULT, which is why rows of one table supplying
 * different columns go to different statements. `overriding system value` is added when an `identity
 * always` column is supplied.
 *
 * @example
 * insertSql(book, ['id', 'title'])
 * // insert into "public"."book" ("id", "title") select d."id"::uuid, d."title"::text
 * //   from unnest($1::text[], $2::text[]) as d("id", "title")
 * insertSql(book, ['id', 'title'], [], 'row')
 * // insert into "public"."book" ("id", "title") values ($1::text::uuid, $2::text::text)
 */
export function insertSql(
  table: TableModel,
  columns: readonly string[],
  returning: readonly string[] = [],
  form: RowsForm = 'rows',
): string {
  const models = columns.map((name) => table.columnsByName.get(name)!)
  const overriding = models.some((c) => c.identity === 'always') ? ' overriding system value' : ''
  const list = columns.map(quoteIdentifier).join(', ')
  const texts = sourceTexts(columns, form)
  const values = models.map((c, i) => castText(texts[i]!, c)).join(', ')
  const returned = returning.length > 0 ? ` returning ${returnedList(returning)}` : ''
  const rows = form === 'row' ? `values (${values})` : `select ${values} from ${unnestSql(columns, 'd')}`
  return `insert into ${table.sqlName} (${list})${overriding} ${rows}${returned}`
}
