import type { ColumnModel } from '../schema/model.ts'
import { checkValue, type ValueLocation } from '../values/index.ts'
import { capturedColumns } from './captured-columns.ts'
import { insertCell } from './cells.ts'
import { ConflictRef } from './conflict-ref.ts'
import { type InsertInput, Slot, type StatementDraft } from './draft.ts'

/**
 * Where values are checked column by column: a failure there is found again row by row (see
 * `firstBadValue`), which names the row.
 */
const UNLOCATED: ValueLocation = { table: '' }

/** What no value is: the first row of a column is never "the same as the previous one". */
const NOTHING = Symbol('nothing')

/**
 * Checks every value of a large plain insert draft, column by column, as encoding it would (see
 * `checkValue`), without keeping a text or a copy of any: the draft is left {@link
 * StatementDraft.deferred}, its cells not made, what it sends of its entities taken when it is
 * written (held by the entities, see `copyRows`). Reads what encoding reads besides: the values the planner reads again
 * (`StatementDraft.values`) and the parameters holding slots (`slotted`).
 *
 * Every value is checked before anything is sent; the texts of a million rows are not all held at once.
 */
export function checkInsert(draft: StatementDraft): void {
  const { table, columns } = draft
  let conflictRefs = false
  let p = 0
  for (const column of table.columns) {
    if (p < columns.length && columns[p] === column.name) {
      conflictRefs = checkColumn(draft, p, column) || conflictRefs
      p++
    }
  }
  draft.params = []
  const first = draft.rows[0] as InsertInput | undefined
  draft.deferred = { conflictRefs, held: first?.owner !== undefined }
}

/** Checks `column` (parameter `p`) of every row; answers whether a row references an upsert. */
function checkColumn(draft: StatementDraft, p: number, column: ColumnModel): boolean {
  const { table, rows } = draft
  const captured = capturedColumns(table, draft.upsert).has(column.name)
    ? new Array<unknown>(rows.length)
    : undefined
  if (captured !== undefined) draft.values.set(column.name, captured)
  let conflictRefs = false
  let previous: unknown = NOTHING
  for (let r = 0; r < rows.length; r++) {
    const value = insertCell(rows[r] as InsertInput, column, table)
    if (captured !== undefined) captured[r] = value
    if (value instanceof Slot) {
      draft.slotted[p] = true
      if (value instanceof ConflictRef) conflictRefs = true
      continue
    }
    if (value !== previous) {
      checkValue(value, column, UNLOCATED)
      previous = value
    }
  }
  return conflictRefs
}
