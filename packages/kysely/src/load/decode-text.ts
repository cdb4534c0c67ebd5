import { type ColumnModel, decodeValue, PipeflushError, type TableModel } from '@pipeflush/core'

/**
 * Decodes a value `load(query)` selected as text (see `textSelection`) with core's `decodeValue`:
 * the same representations `em.find` returns.
 */
export function decodeText(value: unknown, column: ColumnModel, table: TableModel): unknown {
  if (value !== null && value !== undefined && typeof value !== 'string') {
    throw new PipeflushError(
      'INVALID_VALUE',
      `load(query): ${table.key}.${column.name} was not selected as text.`,
      {
        table: table.key,
        column: column.name,
      },
    )
  }
  return decodeValue(value ?? null, column, { table: table.key })
}
