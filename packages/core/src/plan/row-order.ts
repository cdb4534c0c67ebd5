import type { TableModel } from '../schema/model.ts'
import { compareNormalizedKeys } from '../values/index.ts'
import type { RowDraft } from './drafts.ts'

/** Orders two rows of `table` by primary key, column by column (their canonical key forms). */
export function rowKeyComparator(table: TableModel): (a: RowDraft, b: RowDraft) => number {
  const columns = table.primaryKey.map((name) => table.columnsByName.get(name)!)
  return (a, b) => {
    for (let i = 0; i < columns.length; i++) {
      const order = compareNormalizedKeys(a.keyIds[i]!, b.keyIds[i]!, columns[i]!)
      if (order !== 0) return order
    }
    return 0
  }
}

/**
 * The rows ordered by primary key, so concurrent flushes lock rows in one order: `rows` itself when
 * already in order (one pass, no copy), else a sorted copy.
 *
 * @example
 * sortRowsByKey(tag, rows).map((r) => r.keyIds[0]) // ['1', '2', '10']
 */
export function sortRowsByKey(table: TableModel, rows: readonly RowDraft[]): readonly RowDraft[] {
  if (rows.length < 2) return rows
  const compare = rowKeyComparator(table)
  for (let i = 1; i < rows.length; i++) {
    if (compare(rows[i - 1]!, rows[i]!) > 0) return [...rows].sort(compare)
  }
  return rows
}

/** Whether two rows have the same primary key (canonical forms equal). */
export function sameRowKey(a: RowDraft, b: RowDraft): boolean {
  for (let i = 0; i < a.keyIds.length; i++) if (a.keyIds[i] !== b.keyIds[i]) return false
  return true
}
