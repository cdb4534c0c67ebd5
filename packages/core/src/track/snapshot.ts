import { PipeflushError } from '../errors.ts'
import type { TableModel } from '../schema/model.ts'
import { cloneValue } from './clone.ts'
import { emptyRow } from './row.ts'

/** A copy of a row's values, for dirty checking: what the database holds after a flush or a read. */
export function snapshotOf(
  table: TableModel,
  row: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out = emptyRow()
  for (const c of table.columns) {
    try {
      out[c.name] = cloneValue(row[c.name])
    } catch (cause) {
      throw new PipeflushError(
        'INVALID_VALUE',
        `${table.key}.${c.name} holds a value no column can store (${String((cause as Error)?.message ?? cause)}).`,
        { table: table.key, column: c.name, cause },
      )
    }
  }
  return out
}

/**
 * Whether values of `table` can change in place (json objects, arrays, Buffers, Dates of date and
 * timestamp columns), without an
 * assignment the entity's Proxy would see: such entities are compared at every flush.
 */
export function hasMutableColumns(table: TableModel): boolean {
  return table.columns.some(
    (c) =>
      c.isArray ||
      c.type === 'json' ||
      c.type === 'jsonb' ||
      c.type === 'bytea' ||
      c.type === 'date' ||
      c.type === 'timestamp' ||
      c.type === 'timestamptz',
  )
}
