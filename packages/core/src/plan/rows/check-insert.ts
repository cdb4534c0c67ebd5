import { columnOf } from '../../schema/checks.ts'
import type { EntityState } from '../../track/entity-state.ts'
import { SentSnapshots } from '../../track/sent-snapshot.ts'
import { checkValue, type ValueLocation } from '../../values/index.ts'
import { capturedValues, type InsertInput, Slot, type StatementDraft } from '../draft.ts'
import { capturedColumns } from './captured-columns.ts'
import { insertCell } from './cells.ts'
import { ConflictRef } from './conflict-ref.ts'

/**
 * Where values are checked before their row is known: a failure there is found again row by row (see
 * `firstBadValue`), which names the row.
 */
const UNLOCATED: ValueLocation = { table: '' }

/** What no value is: the first row of a column is never "the same as the previous one". */
const NOTHING = Symbol('nothing')

/** Whether a sent value stands for an id not assigned yet (the planner fills it). */
const standsIn = (value: unknown): boolean => value instanceof Slot

/**
 * Checks every value of a large plain insert draft, row by row, as encoding it would (see
 * `checkValue`; a value repeating the previous row's is checked once), without keeping a text of any:
 * the draft is left {@link StatementDraft.deferred}, its cells not made, its rows written as COPY
 * data when the plan is completed (see `copyRows`). Reads what encoding reads besides: the values the
 * planner reads again (`StatementDraft.values`) and the parameters holding slots (`slotted`).
 *
 * What the flush sends of each entity is taken here, as the flush is called, and the entity holds it
 * at once (`heldSnapshot`, mostly kept as sent: see `SentSnapshots`): an assignment before the rows
 * are written makes it whole first, so the rows are written with the values checked, and the change
 * stays pending, as with a smaller insert.
 *
 * Every value is checked before anything is sent; the texts of a million rows are not all held at once.
 */
export function checkInsert(draft: StatementDraft): void {
  const { table, rows } = draft
  const columns = draft.columns.map((name) => columnOf(table, name))
  const capture = capturedColumns(table, draft.upsert)
  const captured = columns.map((column) => {
    if (!capture.has(column.name)) return undefined
    const values = new Array<unknown>(rows.length)
    capturedValues(draft).set(column.name, values)
    return values
  })
  const previous: unknown[] = new Array(columns.length).fill(NOTHING)
  const held = (rows[0] as InsertInput | undefined)?.owner !== undefined
  const sent = held ? new SentSnapshots(table, columns, standsIn) : undefined
  let conflictRefs = false
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as InsertInput
    sent?.start(row.row)
    for (let c = 0; c < columns.length; c++) {
      const column = columns[c]!
      const value = insertCell(row, column, table)
      const values = captured[c]
      if (values !== undefined) values[r] = value
      if (value instanceof Slot) {
        draft.slotted[c] = true
        if (value instanceof ConflictRef) conflictRefs = true
      } else if (value !== previous[c]) {
        checkValue(value, column, UNLOCATED)
        previous[c] = value
      }
      sent?.value(c, value)
    }
    if (sent !== undefined) (row as EntityState).heldSnapshot = sent.finish()
  }
  draft.params = []
  draft.deferred = { conflictRefs, held }
}
