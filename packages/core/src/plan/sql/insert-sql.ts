import type { TableModel } from '../../schema/model.ts'
import { quoteIdentifier } from '../../values/identifier.ts'
import { returnedList } from './returning-sql.ts'
import { castElement, unnestSql } from './sql-text.ts'

/**
 * The insert of rows supplying `columns` (in table order): one `text[]` parameter per column, cast
 * element-wise. The text is constant for a (table, column set), whatever the number of rows. Columns a
 * row does not supply take their DEFAULT, which is why rows of one table supplying different columns go
 * to different statements. `overriding system value` is added when an `identity always` column is supplied.
 *
 * @example
 * insertSql(book, ['id', 'title'])
 * // insert into "public"."book" ("id", "title") select d."id"::uuid, d."title"::text
 * //   from unnest($1::text[], $2::text[]) as d("id", "title")
 */
export function insertSql(
  table: TableModel,
  columns: readonly string[],
  returning: readonly string[] = [],
): string {
  const models = columns.map((name) => table.columnsByName.get(name)!)
  const overriding = models.some((c) => c.identity === 'always') ? ' overriding system value' : ''
  const list = columns.map(quoteIdentifier).join(', ')
  const select = models.map((c) => castElement('d', c.name, c)).join(', ')
  const returned = returning.length > 0 ? ` returning ${returnedList(returning)}` : ''
  return `insert into ${table.sqlName} (${list})${overriding} select ${select} from ${unnestSql(columns, 'd')}${returned}`
}
