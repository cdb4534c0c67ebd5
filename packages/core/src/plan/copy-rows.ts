import { columnOf } from '../schema/checks.ts'
import type { ColumnModel } from '../schema/model.ts'
import type { EntityState } from '../track/entity-state.ts'
import { SentSnapshots } from '../track/sent-snapshot.ts'
import { encodeValue, type ValueLocation } from '../values/index.ts'
import { insertCell } from './cells.ts'
import { CopyChunks } from './copy-chunks.ts'
import { type IdSource, type InsertInput, Slot, type StatementDraft, slotEntity } from './draft.ts'
import { rowLocation } from './row-key.ts'

/** Where values are encoded row by row: a failure is encoded again with its row's location. */
const UNLOCATED: ValueLocation = { table: '' }

/** What no value is: the first row of a column is never "the same as the previous one". */
const NOTHING = Symbol('nothing')

/**
 * The COPY data of an insert whose values were checked but not encoded (see
 * `StatementDraft.deferred`), written from its rows in `order` once their ids are assigned (`ids`
 * fills the slots of the values the planner kept: references resolved when checked): each value
 * encoded as it is written into its chunk (see `CopyChunks`), no text kept per value; a value
 * repeating the previous row's is encoded once. For entities, what the flush sends of each is taken
 * in the same pass. A value changed since it was checked that does not
 * encode is `INVALID_VALUE` naming its row, before anything is sent.
 *
 * What is sent of an entity is mostly its row as it is: it is kept as sent (see `SentSnapshots`), and
 * held by the entity at once (a new entity being written holds its snapshot), so that an assignment
 * before the flush ends makes it whole first.
 *
 * The rows are read twice (checked when planned, written here): their texts never all exist at once.
 */
export function copyRows(draft: StatementDraft, order: Int32Array | null, ids: IdSource): Buffer[] {
  const { table, rows } = draft
  const columns = draft.columns.map((name) => columnOf(table, name))
  // Foreign-key and unique columns as they were checked (a reference resolved then, a slot filled now).
  const captured = columns.map((column) => draft.values.get(column.name))
  const last = columns.length - 1
  const previous: unknown[] = new Array(columns.length).fill(NOTHING)
  const texts: (string | null)[] = new Array(columns.length).fill(null)
  const sent = draft.deferred?.held ? new SentSnapshots(table, columns) : undefined
  const out = new CopyChunks()
  for (let i = 0; i < rows.length; i++) {
    const r = order === null ? i : order[i]!
    const row = rows[r] as InsertInput
    sent?.start(row.row)
    for (let c = 0; c <= last; c++) {
      const column = columns[c]!
      const held = captured[c]
      let value = held === undefined ? insertCell(row, column, table) : held[r]
      if (value instanceof Slot) value = ids(slotEntity(value, row), value.column)
      if (value !== previous[c]) {
        texts[c] = encodeAt(value, column, draft, r)
        previous[c] = value
      }
      out.field(texts[c]!, c === last)
      sent?.value(c, value)
    }
    out.endRow(columns.length)
    // The entity holds what is sent of it from now on: an assignment in flight makes it whole first.
    if (sent !== undefined) (row as EntityState).heldSnapshot = sent.finish()
  }
  return out.finish()
}

/** The text of `value` of row `r`; a value that does not encode is reported with the row's key. */
function encodeAt(value: unknown, column: ColumnModel, draft: StatementDraft, r: number): string | null {
  try {
    return encodeValue(value, column, UNLOCATED)
  } catch {
    return encodeValue(value, column, rowLocation(draft.table, draft.keys[r]))
  }
}
