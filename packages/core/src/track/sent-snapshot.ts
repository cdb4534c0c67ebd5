import type { ColumnModel, TableModel } from '../model/model.ts'
import { perTable } from '../schema/per-table.ts'
import { subMilliseconds } from '../values/timestamp.ts'
import type { EntityState } from './entity-state.ts'
import { emptyRowOf } from './row.ts'
import { snapshotValue } from './snapshot.ts'

/**
 * The snapshot of an entity whose row a flush wrote as it was (a large insert sent as COPY), kept
 * without a copy of the row: the row's own values stand for the values sent, and only what the row
 * may change without an assignment is kept, as copies (a Date as its time, json, arrays and bytes
 * copied), with the keys its references were sent as. An assignment to the entity makes it whole
 * first (see `entity-proxy.ts`); dirty checking compares the kept values only (see
 * `changedColumns`); reading `EntityState.snapshot` makes it whole ({@link wholeSnapshot}).
 *
 * Held as a {@link SentSnapshot}, or, for a table whose one kept column holds Dates, as that Date's
 * time alone (a number: 16 bytes a row, where a copy of the row cost a few hundred).
 *
 * A copy of every row of a million-row insert held more than the rows themselves.
 */
export type Kept = SentSnapshot | number

/** A snapshot kept as sent, as an object: the kept values by their layout's names (see {@link Kept}). */
export class SentSnapshot {
  [kept: string]: unknown
}

/** Whether a snapshot as an entity holds it (`EntityState.heldSnapshot`) is kept as sent. */
export function isKept(held: unknown): held is Kept {
  return typeof held === 'number' || held instanceof SentSnapshot
}

/**
 * How the snapshots kept as sent of a table are made: the columns whose values they keep (those whose
 * values may be objects, and foreign keys), the names they keep them under, and one constructor that
 * sizes its objects for them.
 */
interface Layout {
  readonly kept: readonly ColumnModel[]
  readonly names: readonly string[]
  /** Each column's place among the kept ones, by name. */
  readonly at: ReadonlyMap<string, number>
  readonly make: new () => SentSnapshot
  /** One snapshot keeping nothing (every value the row's own), shared. */
  readonly none: SentSnapshot
  /** The table keeps one column, of Dates: its snapshots are the Dates' times (see {@link Kept}). */
  readonly time: boolean
}

const layoutOf = perTable((table): Layout => {
  const references = new Set(table.foreignKeys.flatMap((fk) => fk.columns))
  const kept = table.columns.filter((c) => mayBeObject(c) || references.has(c.name))
  const names = kept.map((_, i) => `k${i}`)
  const Make = function SentRow() {} as unknown as new () => SentSnapshot
  Make.prototype = SentSnapshot.prototype
  // V8 sizes a constructor's objects by the properties its first objects hold: one holding them all.
  const none = new Make()
  for (const name of names) none[name] = undefined
  return {
    kept,
    names,
    at: new Map(kept.map((c, i) => [c.name, i])),
    make: Make,
    none,
    time: kept.length === 1 && timeOf(kept[0]!),
  }
})

/**
 * Whether values of `column` may be objects (which the application may change in place): a mapped
 * column's values are the application's own, of any kind.
 */
function mayBeObject(column: ColumnModel): boolean {
  if (column.isArray || column.mapping !== undefined) return true
  const type = column.type
  return (
    type === 'json' ||
    type === 'jsonb' ||
    type === 'bytea' ||
    type === 'date' ||
    type === 'timestamp' ||
    type === 'timestamptz'
  )
}

/** Whether a kept number of `column` stands for a Date (its time): the column takes Dates, not numbers. */
function timeOf(column: ColumnModel): boolean {
  return (
    !column.isArray &&
    column.mapping === undefined &&
    (column.type === 'date' || column.type === 'timestamp' || column.type === 'timestamptz')
  )
}

/** The columns whose values a snapshot kept as sent of `table` may keep, in table order. */
export function keptColumns(table: TableModel): readonly ColumnModel[] {
  return layoutOf(table).kept
}

/**
 * The value `kept` keeps for the `i`-th of {@link keptColumns}, as held (a Date as its time: see
 * {@link isKeptTime}), or undefined when the row's own value is the one sent.
 */
export function heldValue(kept: Kept, table: TableModel, i: number): unknown {
  if (typeof kept === 'number') return i === 0 ? kept : undefined
  return kept[layoutOf(table).names[i]!]
}

/** Whether a kept value of `column` is a Date's time (see {@link heldValue}). */
export function isKeptTime(value: unknown, column: ColumnModel): value is number {
  return typeof value === 'number' && timeOf(column)
}

/**
 * The value `column` of `state` was sent with as `kept` keeps it, restored (a Date of a kept time), or
 * undefined when the row's own value is the one sent.
 */
export function keptValue(kept: Kept, state: EntityState, column: ColumnModel): unknown {
  const i = layoutOf(state.table).at.get(column.name)
  if (i === undefined) return undefined
  const value = heldValue(kept, state.table, i)
  return isKeptTime(value, column) ? new Date(value) : value
}

/** The whole snapshot `kept` stands for: every column of the table, the row's own values where kept none. */
export function wholeSnapshot(kept: Kept, state: EntityState): Record<string, unknown> {
  const { table, row } = state
  const out = emptyRowOf(table, 'snapshot')
  for (const column of table.columns) {
    const value = keptValue(kept, state, column)
    out[column.name] =
      value !== undefined ? value : Object.hasOwn(row, column.name) ? row[column.name] : undefined
  }
  return out
}

/** The place of `column` among the columns `table`'s snapshots kept as sent keep, or -1. */
export function keptIndex(table: TableModel, column: string): number {
  return layoutOf(table).at.get(column) ?? -1
}

/** Replaces the value `kept` keeps for the `i`-th of {@link keptColumns} (an id once known). */
export function keepValue(kept: SentSnapshot, table: TableModel, i: number, value: unknown): void {
  kept[layoutOf(table).names[i]!] = value
}

/**
 * Makes, row after row, what a flush sends of the entities of an insert into `table` writing
 * `columns`: for each row, the value sent in each column ({@link value}), then {@link finish}. A row
 * holding exactly those columns (a key to be given an id aside), whose values sent are its own but
 * where a column keeps them, is kept as sent ({@link Kept}); any other gets a whole snapshot, as a
 * smaller insert does. A value that stands for an id not known yet (`standsIn`) is kept as it is, for
 * the planner to replace.
 */
export class SentSnapshots {
  readonly #table: TableModel
  readonly #columns: readonly ColumnModel[]
  readonly #names: readonly string[]
  readonly #layout: Layout
  readonly #standsIn: (value: unknown) => boolean
  /** Each written column's place among the kept ones, or -1. */
  readonly #keptAt: Int32Array
  /** The values sent of the current row, by written column. */
  readonly #sent: unknown[]
  #row: Readonly<Record<string, unknown>> = {}
  /** The row's own properties, and how many of them the written columns met. */
  #own = 0
  #met = 0
  #fits = false

  constructor(table: TableModel, columns: readonly ColumnModel[], standsIn: (value: unknown) => boolean) {
    this.#table = table
    this.#columns = columns
    this.#names = columns.map((c) => c.name)
    this.#layout = layoutOf(table)
    this.#standsIn = standsIn
    this.#keptAt = Int32Array.from(columns, (c) => this.#layout.at.get(c.name) ?? -1)
    this.#sent = new Array(columns.length).fill(undefined)
  }

  /** Starts a row (an entity's). */
  start(row: Readonly<Record<string, unknown>>): void {
    this.#row = row
    let own = 0
    for (const name in row) if (Object.hasOwn(row, name)) own++
    this.#own = own
    this.#met = 0
    this.#fits = true
  }

  /** The value sent in the `c`-th written column of the row. */
  value(c: number, sent: unknown): void {
    this.#sent[c] = sent
    const name = this.#names[c]!
    const now = this.#row[name]
    if (Object.hasOwn(this.#row, name)) this.#met++
    if (!this.#fits || this.#keptAt[c]! >= 0) return
    // Not kept: the row's own value must be the one sent (its key once it is given an id), and not
    // one it may change in place.
    if (this.#standsIn(sent)) {
      if (now !== undefined && now !== null) this.#fits = false
    } else if (sent !== now || (typeof sent === 'object' && sent !== null)) this.#fits = false
  }

  /** What the flush sends of the row: kept as sent, or a whole snapshot (copies of its objects). */
  finish(): Record<string, unknown> | Kept {
    if (!this.#fits || this.#met !== this.#own) return this.#whole()
    const layout = this.#layout
    const columns = this.#columns
    let out: SentSnapshot | undefined
    for (let c = 0; c < columns.length; c++) {
      const i = this.#keptAt[c]!
      if (i < 0) continue
      const sent = this.#sent[c]
      if (sent === this.#row[this.#names[c]!] && (typeof sent !== 'object' || sent === null)) continue
      // A Date with microseconds (a key's, as read) is kept as a copy, which keeps them; not as its time.
      const time = sent instanceof Date && timeOf(columns[c]!) && subMilliseconds(sent, sent.getTime()) === 0
      if (time && layout.time) return sent.getTime()
      if (out === undefined) {
        out = new layout.make()
        for (let k = 0; k < layout.names.length; k++) out[layout.names[k]!] = undefined
      }
      out[layout.names[i]!] = time ? sent.getTime() : this.#copy(c, sent)
    }
    return out ?? layout.none
  }

  /** A whole snapshot of the row's values sent, as a smaller insert takes it. */
  #whole(): Record<string, unknown> {
    const table = this.#table
    const columns = this.#columns
    const out = emptyRowOf(table, 'snapshot')
    for (const column of table.columns) out[column.name] = undefined
    for (let c = 0; c < columns.length; c++) out[columns[c]!.name] = this.#copy(c, this.#sent[c])
    return out
  }

  /** A value sent as a snapshot holds it: a copy of an object, a stand-in as it is. */
  #copy(c: number, sent: unknown): unknown {
    return this.#standsIn(sent) ? sent : snapshotValue(this.#table, this.#names[c]!, sent)
  }
}
