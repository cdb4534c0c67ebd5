import type { ColumnModel, TableModel } from '../schema/model.ts'
import { perTable } from '../schema/per-table.ts'
import type { EntityState } from './entity-state.ts'
import { emptyRowOf, sameShape } from './row.ts'
import { snapshotValue } from './snapshot.ts'

/**
 * The snapshot of an entity whose row a flush wrote as it was (a large insert sent as COPY), kept
 * without a copy of the row: the row's own values stand for the values sent, and only what the row
 * may change without an assignment is kept, as copies (a Date as its time, json, arrays and bytes
 * copied), with the keys its references were sent as. An assignment to the entity makes it whole
 * first (see `entity-proxy.ts`); dirty checking compares the kept values only (see
 * `changedColumns`); reading `EntityState.snapshot` makes it whole ({@link wholeSnapshot}).
 *
 * A copy of every row of a million-row insert held more than the rows themselves.
 */
export class SentSnapshot {
  /** The kept values, under the names of their layout (see {@link keptValue}). */
  [kept: string]: unknown
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
  /** When a table keeps nothing (every value is the row's own): its one snapshot, shared. */
  readonly empty: SentSnapshot | undefined
}

const layoutOf = perTable((table): Layout => {
  const references = new Set(table.foreignKeys.flatMap((fk) => fk.columns))
  const kept = table.columns.filter((c) => mayBeObject(c) || references.has(c.name))
  const names = kept.map((_, i) => `k${i}`)
  const Make = function SentRow() {} as unknown as new () => SentSnapshot
  Make.prototype = SentSnapshot.prototype
  // V8 sizes a constructor's objects by the properties its first objects hold: one holding them all.
  const whole = new Make()
  for (const name of names) whole[name] = undefined
  return {
    kept,
    names,
    at: new Map(kept.map((c, i) => [c.name, i])),
    make: Make,
    empty: kept.length === 0 ? whole : undefined,
  }
})

/** Whether values of `column` may be objects (which the application may change in place). */
function mayBeObject(column: ColumnModel): boolean {
  if (column.isArray) return true
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
    (column.type === 'date' || column.type === 'timestamp' || column.type === 'timestamptz')
  )
}

/**
 * The value `column` of `state` was sent with as `sent` keeps it, restored (a Date of a kept time), or
 * undefined when the row's own value is the one sent.
 */
export function keptValue(sent: SentSnapshot, state: EntityState, column: ColumnModel): unknown {
  const layout = layoutOf(state.table)
  const i = layout.at.get(column.name)
  if (i === undefined) return undefined
  const kept = sent[layout.names[i]!]
  return typeof kept === 'number' && timeOf(column) ? new Date(kept) : kept
}

/** The columns whose values a snapshot kept as sent of `table` may keep, in table order. */
export function keptColumns(table: TableModel): readonly ColumnModel[] {
  return layoutOf(table).kept
}

/**
 * The value `sent` keeps for the `i`-th of {@link keptColumns}, as held (a Date as its time: see
 * {@link isKeptTime}), or undefined when the row's own value is the one sent.
 */
export function heldValue(sent: SentSnapshot, table: TableModel, i: number): unknown {
  return sent[layoutOf(table).names[i]!]
}

/** Whether a kept value of `column` is a Date's time (see {@link heldValue}). */
export function isKeptTime(kept: unknown, column: ColumnModel): kept is number {
  return typeof kept === 'number' && timeOf(column)
}

/** The whole snapshot `sent` stands for: every column of the table, the row's own values where kept none. */
export function wholeSnapshot(sent: SentSnapshot, state: EntityState): Record<string, unknown> {
  const { table, row } = state
  const out = emptyRowOf(table, 'snapshot')
  for (const column of table.columns) {
    const kept = keptValue(sent, state, column)
    out[column.name] =
      kept !== undefined ? kept : Object.hasOwn(row, column.name) ? row[column.name] : undefined
  }
  return out
}

/**
 * Makes, row after row, what a flush sends of the entities of an insert into `table` writing
 * `columns`: for each row, the value sent in each column ({@link value}), then {@link finish}. A row
 * holding exactly those columns, whose values sent are its own but where a column keeps them, is
 * kept as sent ({@link SentSnapshot}); any other gets a whole snapshot, as a smaller insert does.
 */
export class SentSnapshots {
  readonly #table: TableModel
  readonly #columns: readonly ColumnModel[]
  readonly #names: readonly string[]
  readonly #layout: Layout
  /** Each written column's place among the kept ones, or -1. */
  readonly #keptAt: Int32Array
  /** The values sent of the current row, by written column. */
  readonly #sent: unknown[]
  #row: Readonly<Record<string, unknown>> = {}
  #fits = false

  constructor(table: TableModel, columns: readonly ColumnModel[]) {
    this.#table = table
    this.#columns = columns
    this.#names = columns.map((c) => c.name)
    this.#layout = layoutOf(table)
    this.#keptAt = Int32Array.from(columns, (c) => this.#layout.at.get(c.name) ?? -1)
    this.#sent = new Array(columns.length).fill(undefined)
  }

  /** Starts a row (an entity's). */
  start(row: Readonly<Record<string, unknown>>): void {
    this.#row = row
    this.#fits = sameShape(row, this.#names)
  }

  /** The value sent in the `c`-th written column of the row. */
  value(c: number, sent: unknown): void {
    this.#sent[c] = sent
    if (!this.#fits || this.#keptAt[c]! >= 0) return
    // Not kept: the row's own value must be the one sent, and not one it may change in place.
    if (sent !== this.#row[this.#names[c]!] || (typeof sent === 'object' && sent !== null)) this.#fits = false
  }

  /** What the flush sends of the row: kept as sent, or a whole snapshot (copies of its objects). */
  finish(): Record<string, unknown> {
    const table = this.#table
    const columns = this.#columns
    if (!this.#fits) {
      const out = emptyRowOf(table, 'snapshot')
      for (const column of table.columns) out[column.name] = undefined
      for (let c = 0; c < columns.length; c++)
        out[columns[c]!.name] = snapshotValue(table, columns[c]!.name, this.#sent[c])
      return out
    }
    const layout = this.#layout
    if (layout.empty !== undefined) return layout.empty
    const out = new layout.make()
    for (let i = 0; i < layout.names.length; i++) out[layout.names[i]!] = undefined
    for (let c = 0; c < columns.length; c++) {
      const i = this.#keptAt[c]!
      if (i < 0) continue
      const sent = this.#sent[c]
      if (sent === this.#row[this.#names[c]!] && (typeof sent !== 'object' || sent === null)) continue
      out[layout.names[i]!] =
        sent instanceof Date && timeOf(columns[c]!)
          ? sent.getTime()
          : snapshotValue(table, columns[c]!.name, sent)
    }
    return out
  }
}
