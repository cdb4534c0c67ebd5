import type { Row } from '../drivers/driver.ts'
import { isPipeflushError } from '../errors.ts'
import type { ColumnModel, TableModel } from '../model/model.ts'
import { perTable } from '../schema/per-table.ts'
import { compiled, propertyName } from '../track/compiled-rows.ts'
import { rowMaker } from '../track/row.ts'
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
  at: { table: table.key, what: 'a row read' },
  columns: table.columns.map((column, i) => ({
    name: column.name,
    selected: `c${i}`,
    column,
    codec: plainCodec(column),
  })),
}))

/**
 * A row selected as `c0, c1...` texts (every column of `table`, in table order, as reads select them),
 * decoded by column. The names, codecs and location are found once per table, in a decoder built
 * once per table with its columns' names in its code (see `compiled-rows.ts`); a scalar column's text
 * goes straight to its codec, and one that does not decode is decoded again by `decodeValue`, whose
 * error names the table, the column and the row read (by its key, when the key decodes).
 *
 * @example
 * decodeRow(book, { c0: '1', c1: 'Dune', c2: '3' }) // { id: 1, title: 'Dune', author_id: 3 }
 */
export function decodeRow(table: TableModel, raw: Row): Record<string, unknown> {
  const decode = rowDecoderOf(table)
  try {
    return decode(raw)
  } catch (e) {
    throw inRow(table, raw, e)
  }
}

/**
 * `e`, thrown decoding `raw`: a value of a column that cannot be decoded is decoded again, with the
 * row's key in its location (so the message names the row), when the key's own texts decode.
 */
function inRow(table: TableModel, raw: Row, e: unknown): unknown {
  if (!isPipeflushError(e, 'INVALID_VALUE') || e.table !== table.key) return e
  const { columns } = decoderOf(table)
  const failed = columns.find((c) => c.name === e.column)
  const key = failed === undefined ? undefined : keyRead(table, raw)
  if (failed === undefined || key === undefined) return e
  const text = raw[failed.selected]
  try {
    decodeValue(typeof text === 'string' ? text : null, failed.column, { table: table.key, key })
  } catch (located) {
    return located
  }
  return e
}

/** The primary key of the row selected as `raw`, by column; undefined when a key text does not decode. */
function keyRead(table: TableModel, raw: Row): Record<string, unknown> | undefined {
  if (table.primaryKey.length === 0) return undefined
  const { columns } = decoderOf(table)
  const key: Record<string, unknown> = {}
  for (const name of table.primaryKey) {
    const c = columns.find((k) => k.name === name)!
    const text = raw[c.selected]
    if (typeof text !== 'string') return undefined
    try {
      key[c.name] = decodeValue(text, c.column)
    } catch {
      return undefined
    }
  }
  return key
}

type RowDecoder = (raw: Row) => Record<string, unknown>

const rowDecoderOf: (table: TableModel) => RowDecoder = perTable((table) => {
  const { columns, at } = decoderOf(table)
  const Make = rowMaker(table, 'row')
  const loop: RowDecoder = (raw) => {
    const values = new Make()
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
  // Each column's codec and model held in a constant of the decoder's scope (`k3`, `m3`).
  let body = ''
  for (let i = 0; i < columns.length; i++)
    body += `const k${i} = columns[${i}].codec, m${i} = columns[${i}].column\n`
  body += 'return function decodeRow(raw) {\n  const values = new Make()\n  let t\n'
  columns.forEach((c, i) => {
    const p = propertyName(c.name)
    body += `  t = raw[${propertyName(c.selected)}]\n  if (typeof t !== 'string') values[${p}] = null\n`
    body +=
      c.codec === undefined
        ? `  else values[${p}] = decodeValue(t, m${i}, at)\n`
        : `  else try { values[${p}] = k${i}.decode(t, m${i}) } catch { values[${p}] = decodeValue(t, m${i}, at) }\n`
  })
  body += '  return values\n}'
  return compiled(['columns', 'Make', 'decodeValue', 'at'], body, [columns, Make, decodeValue, at], loop)
})
