import type { Row } from '../drivers/driver.ts'
import type { TableModel } from '../schema/model.ts'
import { emptyRowOf } from '../track/row.ts'
import { decodeValue } from '../values/index.ts'
import { type ReadContext, runRead } from './run-read.ts'
import { selectSql, textParams, type Where } from './select-sql.ts'

/**
 * The rows of `table` matching `where`, ordered by primary key, each decoded from the text the server
 * printed (see {@link selectSql}): one query, one round trip, with a flush's guarantees (see
 * {@link runRead}).
 */
export async function readRows(
  context: ReadContext,
  table: TableModel,
  where: Where,
): Promise<Record<string, unknown>[]> {
  const { sql, params } = selectSql(table, where)
  const raw = await runRead(context, sql, textParams(params), `Reading ${table.key}`)
  return raw.map((r) => decodeRow(table, r))
}

/** A row selected as `c0, c1...` texts, decoded by column. */
export function decodeRow(table: TableModel, raw: Row): Record<string, unknown> {
  const values = emptyRowOf(table, 'row')
  const columns = table.columns
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i]!
    const text = raw[`c${i}`]
    values[c.name] = decodeValue(typeof text === 'string' ? text : null, c, { table: table.key })
  }
  return values
}
