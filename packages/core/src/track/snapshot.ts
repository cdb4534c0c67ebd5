import { errors } from '../errors.ts'
import type { TableModel } from '../model/model.ts'
import { perTable } from '../schema/per-table.ts'
import { cloneValue } from './clone.ts'
import { emptyRowOf } from './row.ts'

/** A copy of a row's values, for dirty checking: what the database holds after a flush or a read. */
export function snapshotOf(
  table: TableModel,
  row: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out = emptyRowOf(table, 'snapshot')
  for (const c of table.columns) {
    const value = row[c.name]
    out[c.name] = snapshotValue(table, c.name, value)
  }
  return out
}

/**
 * `value` as a snapshot of `table.column` holds it: itself, or a copy of an object (INVALID_VALUE for
 * what no column can store).
 */
export function snapshotValue(table: TableModel, column: string, value: unknown): unknown {
  return value === null || typeof value !== 'object' ? value : copied(table, column, value)
}

/** A copy of an object value of `table.column`; INVALID_VALUE for what no column can store. */
function copied(table: TableModel, column: string, value: object): unknown {
  try {
    return cloneValue(value)
  } catch (cause) {
    throw errors.unstorableValue(table.key, column, cause)
  }
}

/**
 * Whether values of `table` can change in place (json objects, arrays, Buffers, Dates of date and
 * timestamp columns, and any value of a column with a `mapping`), without an
 * assignment the entity's Proxy would see: such entities are compared at every flush.
 */
export const hasMutableColumns: (table: TableModel) => boolean = perTable(mutableColumns)

function mutableColumns(table: TableModel): boolean {
  return table.columns.some(
    (c) =>
      c.mapping !== undefined ||
      c.isArray ||
      c.type === 'json' ||
      c.type === 'jsonb' ||
      c.type === 'bytea' ||
      c.type === 'date' ||
      c.type === 'timestamp' ||
      c.type === 'timestamptz',
  )
}
