import type { TableModel } from '../../schema/model.ts'
import { quoteIdentifier } from '../../values/identifier.ts'
import { quoteStringLiteral } from '../../values/sql-literal.ts'
import { STALE_MARKER } from '../stale-marker.ts'
import { keyMatchSql } from './sql-text.ts'

/** Name of the single column the update and delete statements return: the number of rows matched. */
export const ROW_COUNT_COLUMN = 'pipeflush_rows'

/**
 * The final `select` of an update or delete statement whose data is the CTE `d` and whose written rows
 * (`returning` the primary key) are the CTE `w`. It returns the matched row count, or, when fewer rows
 * matched than `d` holds, fails on the server: plain SQL has no RAISE, so it casts
 * `'pipeflush:stale:{"table" : ..., "keys" : [...]}'` to int, which fails with SQLSTATE 22P02 and a
 * message carrying the table and the keys that did not match (see `parseStaleError`). The keys are
 * built by the server from the data (`d` minus `w`), never spliced into the SQL text.
 */
export function rowCheckSql(table: TableModel): string {
  const keyColumns = table.primaryKey.map((name) => table.columnsByName.get(name)!)
  const keyArray = table.primaryKey.map((name) => `d.${quoteIdentifier(name)}`).join(', ')
  const missing =
    `select json_build_object('table', ${quoteStringLiteral(table.key)}, 'expected', n.expected, 'matched', n.matched, ` +
    `'keys', coalesce(json_agg(json_build_array(${keyArray})), '[]'::json)) ` +
    `from d where not exists (select 1 from w where ${keyMatchSql('w', 'd', keyColumns)})`
  return (
    `select case when n.matched = n.expected then n.matched ` +
    `else (${quoteStringLiteral(STALE_MARKER)} || (${missing}))::int end as ${quoteIdentifier(ROW_COUNT_COLUMN)} ` +
    `from (select (select count(*) from w)::int as matched, (select count(*) from d)::int as expected) as n`
  )
}
