import type { SchemaModel, TableModel } from '../model/model.ts'
import { planStatements } from '../plan/format-plan.ts'
import { SentRows } from '../plan/sent-rows.ts'
import { returnedAlias } from '../plan/sql/returning-sql.ts'
import type { FlushPlan, PlannedStatement, UpsertSpec } from '../plan/types.ts'
import { perTable } from '../schema/per-table.ts'
import { referencedKey, resolvedValues } from '../track/changes.ts'
import { type EntityState, stateOf } from '../track/entity-state.ts'
import { rowKey } from '../track/keys.ts'
import { emptyRow } from '../track/row.ts'
import { isKept, wholeSnapshot } from '../track/sent-snapshot.ts'
import { conflictId, conflictIdOf } from '../unit-of-work/settle-upserts.ts'
import type { SentValues, ServerFilled } from '../unit-of-work/unit-of-work.ts'
import { decodeValue, referencingValue, type ValueLocation } from '../values/index.ts'
import type { ReturnedRows } from './modes.ts'

type Filled = Map<EntityState, { row: Record<string, unknown>; snapshot: Record<string, unknown> }>

/**
 * The sent entities of the `tables` by canonical key: the keys the flush sent, where a key part
 * references an entity upserted in the same flush taken from that entity's row as stored (`upserted`,
 * matched before): such a part went as a lookup by the upsert's conflict values, so the server chose it.
 */
function statesByKey(
  sent: SentValues,
  tables: ReadonlySet<string>,
  upserted: Filled,
): Map<string, Map<string, EntityState>> {
  const out = new Map<string, Map<string, EntityState>>()
  // What was sent as held: an entity kept as sent is made whole only if its table is read back.
  const add = (state: EntityState, values: Record<string, unknown> | number) => {
    if (!tables.has(state.table.key)) return
    const whole = isKept(values) ? wholeSnapshot(values, state) : values
    const key = rowKey(state.table, upserted.size === 0 ? whole : storedKeyParts(state, whole, upserted))
    if (key === null) return
    let byKey = out.get(state.table.key)
    if (byKey === undefined) {
      byKey = new Map()
      out.set(state.table.key, byKey)
    }
    byKey.set(key, state)
  }
  if (sent instanceof SentRows) sent.eachHeld(add)
  else for (const [state, values] of sent.entries()) add(state, values)
  return out
}

/**
 * `values` with each of `names` (the key's parts by default) that references an upserted entity (in
 * `row`, the entity's row by default) replaced by that entity's stored value.
 */
function storedKeyParts(
  state: EntityState,
  values: Record<string, unknown>,
  upserted: Filled,
  names: readonly string[] = state.table.primaryKey,
  row: Readonly<Record<string, unknown>> = state.row,
): Record<string, unknown> {
  let out: Record<string, unknown> | undefined
  for (const name of names) {
    const ref = stateOf(row[name])
    if (ref?.upserted === undefined) continue
    const stored = upserted.get(ref.upserted.by ?? ref)
    if (stored === undefined) continue
    const column = state.table.columnsByName.get(name)!
    out ??= { ...values }
    out[name] = referencingValue(stored.row[referencedKey(ref, column, state.table).column], column)
  }
  return out ?? values
}

/** Where a returned value is, for a decoding error's message: its table (one object per table). */
const locationOf = perTable((table): ValueLocation => ({ table: table.key }))

/** What {@link decoded} answers for a text that cannot be decoded. */
const UNDECODED: unique symbol = Symbol('undecoded')

/** `text` decoded for `column`, or {@link UNDECODED} when it cannot be (the flush committed: never an error). */
function decoded(text: unknown, table: TableModel, name: string): unknown {
  const column = table.columnsByName.get(name)
  if (column === undefined) return UNDECODED
  try {
    return decodeValue(typeof text === 'string' ? text : null, column, locationOf(table))
  } catch {
    return UNDECODED
  }
}

/** {@link decoded}, undefined for a text that cannot be decoded. */
function decodedOrUndefined(text: unknown, table: TableModel, name: string): unknown {
  const value = decoded(text, table, name)
  return value === UNDECODED ? undefined : value
}

/**
 * What the statements of a committed flush returned (see `PlannedStatement.returning`), matched to the
 * entities they wrote by primary key. Later statements win (a fix-up update after its insert). The
 * rows of an insert whose keys the server filled (`PlannedStatement.sources`) are matched by their
 * order instead, to `inserts` (the change set's new rows, in its order), key included: an insert
 * returns its rows in the order it inserts them, which is the order of the rows it is given (an
 * `unnest`, or one row). When it returns another number of rows (a trigger dropped one), none is
 * matched. An upsert's rows (every column, as stored) are matched to `upserts` by their conflict values,
 * first: a row whose key references an upserted entity is matched by that entity's stored key.
 */
export function serverFilled(
  schema: SchemaModel,
  plan: FlushPlan,
  returned: ReturnedRows,
  sent: SentValues,
  inserts: readonly EntityState[] = [],
  upserts: readonly {
    readonly state: EntityState
    readonly spec: UpsertSpec
    readonly row?: Readonly<Record<string, unknown>>
  }[] = [],
): ServerFilled {
  const out: Filled = new Map()
  // Most flushes read nothing back: found without building anything.
  let tables: Set<string> | undefined
  for (const wave of plan.waves) {
    for (const s of wave) {
      if (s.returning === undefined) continue
      tables ??= new Set()
      tables.add(s.table)
    }
  }
  if (tables === undefined) return out
  const statements = planStatements(plan)
  // Upserts first: the keys of rows referencing an upserted entity are known from what it returned.
  for (let i = 0; i < statements.length; i++) {
    const statement = statements[i]!
    const rows = returned[i]
    const table = schema.tables.get(statement.table)
    if (statement.upsert === undefined || statement.returning === undefined || rows === undefined || !table)
      continue
    upserted(out, statement, rows, table, upserts)
  }
  const byKey = statesByKey(sent, tables, out)
  for (let i = 0; i < statements.length; i++) {
    const statement = statements[i]!
    const rows = returned[i]
    const table = schema.tables.get(statement.table)
    if (statement.returning === undefined || rows === undefined || table === undefined) continue
    if (statement.upsert !== undefined) continue
    if (statement.sources !== undefined) {
      if (rows.length !== statement.sources.length) continue
      rows.forEach((raw, r) => {
        const state = inserts[statement.sources![r]!]
        if (state !== undefined) take(out, state, statement.returning!, raw, table, 0)
      })
      continue
    }
    const states = byKey.get(table.key)
    for (const raw of rows) {
      const key = emptyRow()
      for (let k = 0; k < table.primaryKey.length; k++) {
        key[table.primaryKey[k]!] = decodedOrUndefined(raw[returnedAlias(k)], table, table.primaryKey[k]!)
      }
      const keyText = rowKey(table, key)
      const state = keyText === null ? undefined : states?.get(keyText)
      if (state !== undefined) take(out, state, statement.returning, raw, table, table.primaryKey.length)
    }
  }
  return out
}

/** Matches an upsert's returned rows to the `upserts` of its table by their conflict values. */
function upserted(
  out: Filled,
  statement: PlannedStatement,
  rows: readonly Readonly<Record<string, unknown>>[],
  table: TableModel,
  upserts: readonly {
    readonly state: EntityState
    readonly spec: UpsertSpec
    readonly row?: Readonly<Record<string, unknown>>
  }[],
): void {
  const { conflict } = statement.upsert!
  const returning = statement.returning!
  const byConflict = new Map<string, EntityState>()
  // Conflict values two upserts share (NULLs, each a row of its own): their rows cannot be told apart.
  const shared = new Set<string>()
  for (const { state, spec, row } of upserts) {
    if (state.table !== table || !sameNames(spec.conflict, conflict)) continue
    // By the values sent: a conflict value assigned while the flush was in flight is the next flush's.
    const sent = row ?? state.row
    const id =
      out.size === 0 ? conflictId(state, conflict, sent) : storedConflictId(state, conflict, out, sent)
    if (id === undefined) continue
    if (byConflict.has(id)) shared.add(id)
    byConflict.set(id, state)
  }
  for (const id of shared) byConflict.delete(id)
  const at = conflict.map((name) => returning.indexOf(name))
  const unmatched: number[] = []
  for (let r = 0; r < rows.length; r++) {
    const raw = rows[r]!
    const values = emptyRow()
    for (let i = 0; i < conflict.length; i++)
      values[conflict[i]!] = decodedOrUndefined(raw[returnedAlias(at[i]!)], table, conflict[i]!)
    const id = conflictIdOf(table, conflict, values)
    const state = id === undefined ? undefined : byConflict.get(id)
    if (state !== undefined) take(out, state, returning, raw, table, 0)
    else unmatched.push(r)
  }
  // A row stored with other conflict values than sent (a trigger lowercasing them, a citext's case, a
  // rounded time): an upsert that updates returns one row per row sent, in the order sent, so the row
  // sent in its place says whose it is.
  if (unmatched.length === 0 || rows.length !== statement.rowCount) return
  const sentAt = conflict.map((name) => statement.columns.indexOf(name))
  for (const r of unmatched) {
    const values = emptyRow()
    for (let i = 0; i < conflict.length; i++)
      values[conflict[i]!] = decodedOrUndefined(statement.params[sentAt[i]!]?.[r], table, conflict[i]!)
    const id = conflictIdOf(table, conflict, values)
    const state = id === undefined ? undefined : byConflict.get(id)
    if (state !== undefined && !out.has(state)) take(out, state, returning, rows[r]!, table, 0)
  }
}

/**
 * An upsert's conflict id (see `conflictId`) where a conflict value references an entity upserted
 * before it in the flush (`upserted`, matched first): that entity's stored key, which the server
 * looked up, not the id the flush gave it.
 */
function storedConflictId(
  state: EntityState,
  conflict: readonly string[],
  upserted: Filled,
  row: Readonly<Record<string, unknown>> = state.row,
): string | undefined {
  try {
    const values = resolvedValues(state, state.owner, conflict, row)
    return conflictIdOf(state.table, conflict, storedKeyParts(state, values, upserted, conflict, row))
  } catch {
    return undefined
  }
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i])
}

/** Adds the returned columns of `raw` from the `from`-th on to what the server filled of `state`. */
function take(
  out: Filled,
  state: EntityState,
  returning: readonly string[],
  raw: Readonly<Record<string, unknown>>,
  table: TableModel,
  from: number,
): void {
  let values = out.get(state)
  if (values === undefined) {
    values = { row: emptyRow(), snapshot: emptyRow() }
    out.set(state, values)
  }
  for (let c = from; c < returning.length; c++) {
    const name = returning[c]!
    const text = raw[returnedAlias(c)]
    const forRow = decoded(text, table, name)
    if (forRow === UNDECODED) continue
    // An object (a Date, an array, json) is decoded again: the row may change it in place.
    const shared = typeof forRow !== 'object' || forRow === null
    values.row[name] = forRow
    values.snapshot[name] = shared ? forRow : decodedOrUndefined(text, table, name)
  }
}
