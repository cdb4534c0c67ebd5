import { errors } from '../errors.ts'
import type { TableModel } from '../model/model.ts'
import { perTable } from '../schema/per-table.ts'
import { cloneValue } from './clone.ts'
import { compiled, propertyName } from './compiled-rows.ts'
import { rowMaker } from './row.ts'

/** A copy of a row's values, for dirty checking: what the database holds after a flush or a read. */
export function snapshotOf(
  table: TableModel,
  row: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  return snapshotterOf(table)(row)
}

type Snapshotter = (row: Readonly<Record<string, unknown>>) => Record<string, unknown>

/**
 * {@link snapshotOf} for the rows of one table, built once per table with its columns' names in its
 * code (see `compiled-rows.ts`): a value kept as it is, an object copied (see {@link snapshotValue}).
 */
const snapshotterOf: (table: TableModel) => Snapshotter = perTable((table) => {
  const Make = rowMaker(table, 'snapshot')
  const names = table.columns.map((c) => c.name)
  const copy = (c: number, value: object): unknown => copied(table, names[c]!, value)
  const loop: Snapshotter = (row) => {
    const out = new Make()
    for (let c = 0; c < names.length; c++) {
      const value = row[names[c]!]
      out[names[c]!] = value === null || typeof value !== 'object' ? value : copy(c, value)
    }
    return out
  }
  let body = 'return function snapshotOf(row) {\n  const out = new Make()\n  let v\n'
  names.forEach((name, c) => {
    const p = propertyName(name)
    body += `  v = row[${p}]\n  out[${p}] = v === null || typeof v !== 'object' ? v : copy(${c}, v)\n`
  })
  body += '  return out\n}'
  return compiled(['Make', 'copy'], body, [Make, copy], loop)
})

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
