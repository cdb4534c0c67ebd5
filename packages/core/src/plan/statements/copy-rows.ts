import { errors } from '../../errors.ts'
import type { ColumnModel } from '../../model/model.ts'
import { columnOf } from '../../schema/checks.ts'
import { keyFills } from '../../schema/key-fill.ts'
import type { EntityState } from '../../track/entity-state.ts'
import { heldValue, isKept, isKeptTime, keepValue, keptIndex } from '../../track/sent-snapshot.ts'
import { encodeValue, referencingValue, type ValueLocation } from '../../values/index.ts'
import { subMilliseconds } from '../../values/timestamp.ts'
import { writableTime } from '../../values/timestamp-bytes.ts'
import { type IdSource, type InsertInput, Slot, type StatementDraft, slotEntity } from '../draft.ts'
import { insertCell } from '../rows/cells.ts'
import { rowLocation } from '../rows/row-key.ts'
import { CopyChunks } from './copy-chunks.ts'

/** Where values are encoded row by row: a failure is encoded again with its row's location. */
const UNLOCATED: ValueLocation = { table: '' }

/** What no value is: the first row of a column is never "the same as the previous one". */
const NOTHING = Symbol('nothing')

/**
 * The COPY data of an insert whose values were checked but not encoded (see
 * `StatementDraft.deferred`), written from its rows in `order` once their ids are assigned: each value
 * encoded as it is written into its chunk (see `CopyChunks`), no text kept per value (a timestamp's
 * written as bytes, no text made); a value repeating the previous row's is encoded once. An entity's values are what it holds as sent (taken
 * when the insert was checked, see `checkInsert`): its row's own where they stand for them, a kept
 * Date's time, the whole snapshot an assignment made meanwhile; the ids replace what stood for them
 * (`ids`), there and in the COPY data. A change set's rows are written as they are, references as
 * the planner kept them.
 *
 * The rows are read twice (checked when planned, written here): their texts never all exist at once.
 *
 * Written as they are sent: each chunk is made when the driver asks for the next one, so the server
 * inserts the first rows while the later ones are written. pg makes them in the run that completed
 * the plan, as it writes the message; postgres.js once the server asks for the data (a round trip
 * later), one chunk per turn of the event loop, while the application runs: the values are what the
 * entities hold as sent, which its assignments meanwhile leave alone. Each iteration writes the rows
 * again, the same chunks.
 */
export function copyRows(draft: StatementDraft, order: Int32Array | null, ids: IdSource): Iterable<Buffer> {
  return { [Symbol.iterator]: () => writeRows(draft, order, ids) }
}

/** The chunks of {@link copyRows}, each made when asked for. */
function* writeRows(
  draft: StatementDraft,
  order: Int32Array | null,
  ids: IdSource,
): Generator<Buffer, void, undefined> {
  const { table, rows } = draft
  const columns = draft.columns.map((name) => columnOf(table, name))
  const read = draft.deferred?.held ? new SentReader(draft, columns, ids) : undefined
  // Foreign-key and unique columns as they were checked (a reference resolved then, a slot filled now).
  const captured = columns.map((column) => draft.values.get(column.name))
  const last = columns.length - 1
  // Timestamp columns: their Dates' texts written straight into the data (with a zone or not).
  const stamps = columns.map((c) =>
    c.isArray || c.mapping !== undefined
      ? undefined
      : c.type === 'timestamptz'
        ? true
        : c.type === 'timestamp'
          ? false
          : undefined,
  )
  const previous: unknown[] = new Array(columns.length).fill(NOTHING)
  const texts: (string | null)[] = new Array(columns.length).fill(null)
  const out = new CopyChunks()
  for (let i = 0; i < rows.length; i++) {
    const r = order === null ? i : order[i]!
    const row = rows[r] as InsertInput
    read?.start(row as EntityState)
    for (let c = 0; c <= last; c++) {
      const column = columns[c]!
      let value: unknown
      let same: unknown
      if (read !== undefined) {
        value = read.value(c)
        same = read.same
      } else {
        const held = captured[c]
        value = held === undefined ? insertCell(row, column, table) : held[r]
        if (value instanceof Slot) value = referencingValue(ids(slotEntity(value, row), value.column), column)
        same = value
      }
      const zone = stamps[c]
      // A Date with microseconds (a key's, as read) goes the general way, which writes them.
      if (zone !== undefined && value instanceof Date) {
        const ms = value.getTime()
        if (writableTime(ms) && subMilliseconds(value, ms) === 0) {
          out.timestampField(ms, zone, c === last)
          continue
        }
      }
      if (same !== previous[c]) {
        texts[c] = encodeAt(value, column, draft, r)
        previous[c] = same
      }
      out.field(texts[c]!, c === last)
    }
    out.endRow(columns.length)
    if (out.closed > 0) yield* out.take()
  }
  yield* out.finish()
}

/**
 * Reads, column by column, the values sent of the entities of a draft from what each holds as sent
 * (see {@link copyRows}), filling in the ids. A kept Date is read through one Date set to its time.
 */
class SentReader {
  readonly #draft: StatementDraft
  readonly #columns: readonly ColumnModel[]
  readonly #ids: IdSource
  /** Each column's place among the kept ones (see `keptIndex`), or -1. */
  readonly #kept: Int32Array
  /** Whether each column is a key a sequence fills (an id the row was given). */
  readonly #sequence: boolean[]
  readonly #date = new Date(0)
  #state: EntityState | undefined
  /** What tells a value from the previous row's: the value, or a kept Date's time. */
  same: unknown

  constructor(draft: StatementDraft, columns: readonly ColumnModel[], ids: IdSource) {
    this.#draft = draft
    this.#columns = columns
    this.#ids = ids
    this.#kept = Int32Array.from(columns, (c) => keptIndex(draft.table, c.name))
    const sequence = keyFills(draft.table).sequence
    this.#sequence = columns.map((c) => sequence.includes(c))
  }

  start(state: EntityState): void {
    this.#state = state
  }

  /** The value sent in the `c`-th column of the row. */
  value(c: number): unknown {
    const state = this.#state!
    const table = this.#draft.table
    const name = this.#columns[c]!.name
    const held = state.heldSnapshot
    let value: unknown
    if (isKept(held)) {
      const i = this.#kept[c]!
      value = i < 0 ? undefined : heldValue(held, table, i)
      if (value === undefined) value = state.row[name]
      else if (isKeptTime(value, this.#columns[c]!)) {
        this.same = value
        this.#date.setTime(value)
        return this.#date
      } else if (value instanceof Slot) {
        value = referencingValue(this.#ids(slotEntity(value, state), value.column), this.#columns[c]!)
        if (typeof held !== 'number') keepValue(held, table, i, value)
      }
    } else if (held !== null && typeof held === 'object') {
      // Whole: taken so when checked (the row did not fit), or made so by an assignment since.
      const whole = held as Record<string, unknown>
      value = whole[name]
      if (value instanceof Slot || ((value === undefined || value === null) && this.#sequence[c])) {
        value =
          value instanceof Slot
            ? referencingValue(this.#ids(slotEntity(value, state), value.column), this.#columns[c]!)
            : state.row[name]
        whole[name] = value
      }
    } else throw errors.internal('copyRows', `an entity of ${table.key} holds nothing of what it sends`)
    this.same = value
    return value
  }
}

/** The text of `value` of row `r`; a value that does not encode is reported with the row's key. */
function encodeAt(value: unknown, column: ColumnModel, draft: StatementDraft, r: number): string | null {
  try {
    return encodeValue(value, column, UNLOCATED)
  } catch {
    return encodeValue(value, column, rowLocation(draft.table, draft.keys[r]))
  }
}
