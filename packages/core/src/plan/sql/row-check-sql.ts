import type { TableModel } from '../../model/model.ts'
import { dbNameOf } from '../../schema/column-sql.ts'
import { quoteIdentifier } from '../../values/identifier.ts'
import { quoteStringLiteral } from '../../values/sql-literal.ts'
import { STALE_MARKER } from '../statements/stale-marker.ts'
import type { RowsForm } from './sql-text.ts'

/** Name of the single column the update and delete statements return: the number of rows matched. */
export const ROW_COUNT_COLUMN = 'pipeflush_rows'

/**
 * Names under which the written rows (the CTE `w`) return the key texts the statement was sent: `$k1`,
 * `$k2`... per primary key column, numbered on past any column of the table by that name, so that they
 * never clash with the table's columns `w` also returns. Constant per table.
 */
export function sentKeyNames(table: TableModel): string[] {
  const taken = new Set(table.columns.map(dbNameOf))
  const names: string[] = []
  for (let i = 1; names.length < table.primaryKey.length; i++) {
    const name = `$k${i}`
    if (!taken.has(name)) names.push(name)
  }
  return names
}

/**
 * The part of an update's or delete's `returning` list that gives back the key texts each written row
 * was sent with (the unnest alias `d`): `d."id" as "$k1"`.
 */
export function sentKeyReturning(table: TableModel): string {
  const names = sentKeyNames(table)
  return table.primaryKey
    .map((name, i) => `d.${quoteIdentifier(name)} as ${quoteIdentifier(names[i]!)}`)
    .join(', ')
}

/**
 * The final `select` of an update or delete whose written rows (returning {@link sentKeyReturning})
 * are the CTE `w` and whose first parameters are the key columns' texts, one per row sent. It returns
 * the written row count, or, when fewer rows were written than sent, fails on the server: plain SQL has
 * no RAISE, so it casts `'pipeflush:stale:{"table" : ..., "expected" : 2, "matched" : 1, "sent" :
 * [["7","9"]], "matched_keys" : [["9"]]}'` to int, which fails with SQLSTATE 22P02 and a message
 * carrying the table, the keys sent (one array per key column) and those written, from which
 * `parseStaleError` names the rows that were not. The keys come from the data, never spliced into the
 * SQL text, and are gathered only on that failure.
 *
 * For a single row (form `row`: its key texts are scalar parameters, and `w` need not return them)
 * the count to reach is 1, the key sent is the parameters themselves and, on failure, no key was
 * written (a primary key matches one row at most).
 *
 * Kept small on purpose: the server plans it on every execution (a new statement, or one of the first
 * executions of a prepared one), and the earlier check, which joined the sent rows against the written
 * ones, took longer to plan than the update itself.
 */
export function rowCheckSql(table: TableModel, form: RowsForm = 'rows'): string {
  const one = form === 'row'
  const expected = one ? '1' : 'cardinality($1::text[])'
  const sent = table.primaryKey
    .map((_, i) => (one ? `json_build_array($${i + 1}::text)` : `$${i + 1}::text[]`))
    .join(', ')
  const keys = sentKeyNames(table)
    .map((name) => `w.${quoteIdentifier(name)}`)
    .join(', ')
  const matchedKeys = one
    ? `'[]'::json`
    : `(select coalesce(json_agg(json_build_array(${keys})), '[]'::json) from w)`
  const payload =
    `json_build_object('table', ${quoteStringLiteral(table.key)}, 'expected', ${expected}, ` +
    `'matched', count(*), 'sent', json_build_array(${sent}), 'matched_keys', ${matchedKeys})`
  return (
    `select case when count(*) = ${expected} then count(*)::int ` +
    `else (${quoteStringLiteral(STALE_MARKER)} || ${payload})::int end as ${quoteIdentifier(ROW_COUNT_COLUMN)} from w`
  )
}
