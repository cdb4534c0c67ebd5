import type { TableModel } from '../../model/model.ts'
import { perTable } from '../../schema/per-table.ts'
import { compareNormalizedKeys } from '../../values/index.ts'

/** A row's key as canonical forms: a string for a single-column key, one per column otherwise. */
export type KeyId = string | readonly string[]

/**
 * Orders two keys of `table` (their canonical forms, see {@link KeyId}), column by column.
 *
 * Canonical texts do not sort as their values ('10' before '2' as text): they are compared by column type.
 */
export const keyComparator: (table: TableModel) => (a: KeyId, b: KeyId) => number = perTable(comparatorOf)

function comparatorOf(table: TableModel): (a: KeyId, b: KeyId) => number {
  const columns = table.primaryKey.map((name) => table.columnsByName.get(name)!)
  if (columns.length === 1) {
    const column = columns[0]!
    return (a, b) => compareNormalizedKeys(a as string, b as string, column)
  }
  return (a, b) => {
    for (let i = 0; i < columns.length; i++) {
      const order = compareNormalizedKeys(
        (a as readonly string[])[i]!,
        (b as readonly string[])[i]!,
        columns[i]!,
      )
      if (order !== 0) return order
    }
    return 0
  }
}

/** Whether two keys are the same (canonical forms equal). */
export function sameKey(a: KeyId, b: KeyId): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** A key's canonical forms joined into one string (no canonical form holds a NUL character). */
export function keyText(id: KeyId): string {
  return typeof id === 'string' ? id : id.join('\u0000')
}

/**
 * The order of rows by key (`ids`, one per row): null when they are in order already (one pass, no
 * copy), else the row indexes sorted (ties in row order). Concurrent flushes lock rows in one order.
 */
export function keyOrder(table: TableModel, ids: readonly KeyId[]): Int32Array | null {
  if (ids.length < 2) return null
  const compare = keyComparator(table)
  let sorted = true
  for (let i = 1; i < ids.length && sorted; i++) if (compare(ids[i - 1]!, ids[i]!) > 0) sorted = false
  if (sorted) return null
  const order = new Int32Array(ids.length)
  for (let i = 0; i < order.length; i++) order[i] = i
  return order.sort((a, b) => compare(ids[a]!, ids[b]!) || a - b)
}

/** `items` in `order` (see {@link keyOrder}); `items` itself when `order` is null. */
export function inOrder<T>(items: T[], order: Int32Array | null | undefined): T[] {
  if (!order) return items
  const out: T[] = new Array(order.length)
  for (let r = 0; r < order.length; r++) out[r] = items[order[r]!]!
  return out
}
