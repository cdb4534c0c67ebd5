import type { Row } from '../drivers/driver.ts'
import type { TableModel } from '../model/model.ts'
import { emptyRowOf } from '../track/row.ts'
import { decodeValue } from '../values/index.ts'

/**
 * A row selected as `c0, c1...` texts (every column of `table`, in table order, as reads select them),
 * decoded by column.
 *
 * @example
 * decodeRow(book, { c0: '1', c1: 'Dune', c2: '3' }) // { id: 1, title: 'Dune', author_id: 3 }
 */
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
