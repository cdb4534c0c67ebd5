import { type ColumnModel, PipeflushError, type TableModel } from '@pipeflush/core'

/**
 * Decoding of the values `load(query)` selects as text (see `textSelection`) into pipeflush's
 * representations, the same as `em.find` returns: int2/int4/float as numbers; int8, numeric, date,
 * uuid, enums and text types as strings (`char(n)` without its padding); bool; json parsed; bytea as a
 * Buffer; timestamps (selected as epoch milliseconds) as Dates, `infinity` as `new Date(8.64e15)`.
 * Arrays come as `text[]`, parsed by postgres.js, and are decoded element by element.
 *
 * TODO(core): replace with `decodeValue` once `@pipeflush/core` exports it.
 */
export function decodeText(value: unknown, column: ColumnModel, table: TableModel): unknown {
  if (value === null || value === undefined) return null
  if (column.isArray) {
    if (!Array.isArray(value)) bad(value, column, table, 'postgres.js did not parse text[] (is fetch_types off?)')
    return decodeElements(value, column, table)
  }
  if (typeof value !== 'string') bad(value, column, table)
  return decodeScalar(value, column, table)
}

function decodeElements(values: readonly unknown[], column: ColumnModel, table: TableModel): unknown[] {
  return values.map((v) => {
    if (v === null) return null
    if (Array.isArray(v)) return decodeElements(v, column, table)
    if (typeof v !== 'string') bad(v, column, table)
    return decodeScalar(v, column, table)
  })
}

const DATE_LIMIT_MS = 8.64e15

function decodeScalar(text: string, column: ColumnModel, table: TableModel): unknown {
  switch (column.type) {
    case 'int2':
    case 'int4':
    case 'float4':
    case 'float8':
      return Number(text)
    case 'bool':
      return text === 't' || text === 'true'
    case 'bpchar':
      return text.replace(/ +$/, '')
    case 'json':
    case 'jsonb':
      return JSON.parse(text) as unknown
    case 'bytea':
      return decodeBytea(text, column, table)
    case 'timestamp':
    case 'timestamptz': {
      const ms = Math.floor(Number(text))
      if (ms === Number.POSITIVE_INFINITY) return new Date(DATE_LIMIT_MS)
      if (ms === Number.NEGATIVE_INFINITY) return new Date(-DATE_LIMIT_MS)
      if (!(Math.abs(ms) < DATE_LIMIT_MS)) bad(text, column, table, 'outside the range of a JavaScript Date')
      return new Date(ms)
    }
    default:
      // int8, numeric, text, varchar, date, uuid, enum: pipeflush keeps the server's text.
      return text
  }
}

function decodeBytea(text: string, column: ColumnModel, table: TableModel): Buffer {
  if (text.startsWith('\\x')) return Buffer.from(text.slice(2), 'hex')
  bad(text, column, table, "expected bytea_output = 'hex'")
}

function bad(value: unknown, column: ColumnModel, table: TableModel, why = 'unexpected value'): never {
  throw new PipeflushError('INVALID_VALUE', `load(query): cannot decode ${table.key}.${column.name} from ${JSON.stringify(String(value)).slice(0, 60)}: ${why}.`, {
    table: table.key,
    column: column.name,
  })
}
