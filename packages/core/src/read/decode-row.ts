import type { Row } from '../drivers/driver.ts'
import type { ColumnModel, TableModel } from '../model/model.ts'
import { perTable } from '../schema/per-table.ts'
import { emptyRowOf } from '../track/row.ts'
import { decodeValue, plainCodec, type ScalarCodec, type ValueLocation } from '../values/index.ts'

/** How one column of a table's rows is decoded: its scalar codec when nothing else is needed. */
interface ColumnDecoder {
  readonly name: string
  /** The name the column is selected as: `c0`, `c1`... in table order (see `select-sql.ts`). */
  readonly selected: string
  readonly column: ColumnModel
  /** A scalar column without a mapping: its codec's `decode` alone gives its value. */
  readonly codec: ScalarCodec | undefined
}

/** Everything a table's row decoding needs, found once per table: nothing is looked up per value. */
interface TableDecoder {
  readonly columns: readonly ColumnDecoder[]
  readonly at: ValueLocation
}

const decoderOf: (table: TableModel) => TableDecoder = perTable((table) => ({
  at: { table: table.key },
  columns: table.columns.map((column, i) => ({
    name: column.name,
    selected: `c${i}`,
    column,
    codec: plainCodec(column),
  })),
}))

/**
 * A row selected as `c0, c1...` texts (every column of `table`, in table order, as reads select them),
 * decoded by column. The names, codecs and location are found once per table; a scalar column's text
 * goes straight to its codec, and one that does not decode is decoded again by `decodeValue`, whose
 * error names the table and column.
 *
 * @example
 * decodeRow(book, { c0: '1', c1: 'Dune', c2: '3' }) // { id: 1, title: 'Dune', author_id: 3 }
 */
export function decodeRow(table: TableModel, raw: Row): Record<string, unknown> {
  const values = emptyRowOf(table, 'row')
  const { columns, at } = decoderOf(table)
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i]!
    const text = raw[c.selected]
    if (typeof text !== 'string') values[c.name] = null
    else if (c.codec === undefined) values[c.name] = decodeValue(text, c.column, at)
    else {
      try {
        values[c.name] = c.codec.decode(text, c.column)
      } catch {
        values[c.name] = decodeValue(text, c.column, at)
      }
    }
  }
  return values
}
