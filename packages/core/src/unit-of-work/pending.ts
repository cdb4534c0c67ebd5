import { errors } from '../errors.ts'
import type { ColumnModel, TableModel } from '../model/model.ts'
import { changedColumns, type PendingChanges, resolveReference } from '../track/changes.ts'
import { type EntityState, stateOf } from '../track/entity-state.ts'
import { snapshotValue } from '../track/snapshot.ts'
import { encodeValue, normalizeKeyValue } from '../values/index.ts'
import type { RecordedUpsert, UnitOfWorkState } from './state.ts'

/**
 * What the next flush would write, entity by entity (references not resolved yet). A row of a view
 * changed in place (an assignment is refused at once) is `UNSUPPORTED_TABLE`: views are not written.
 */
export function pendingChanges(uow: UnitOfWorkState): PendingChanges {
  const updates: { state: EntityState; changed: string[] }[] = []
  const watched = uow.watch.managed()
  for (const s of uow.touched) {
    if (s.status === 'managed') updateOf(s, false)
  }
  // Not assigned to since their snapshot: only values that can change in place are compared.
  for (let i = 0; i < watched.length; i++) {
    const s = watched[i]!
    if (!uow.touched.has(s)) updateOf(s, true)
  }
  return {
    inserts: uow.created.toArray(),
    updates,
    deletes: uow.removed.size === 0 ? [] : [...uow.removed],
    // Called only with upserts: a flush runs no function it has no use for (each costs it a few µs).
    upserts: uow.upserts.length === 0 ? [] : dedupedUpserts(uow),
  }

  /** Adds `s` to the updates when a column of it differs from its snapshot (see `changedColumns`). */
  function updateOf(s: EntityState, inPlace: boolean): void {
    const changed = changedColumns(s, uow.owner, inPlace)
    if (changed.length === 0) return
    if (s.table.kind !== 'table') {
      const column = changed[0]!
      throw errors.readOnly(
        s.table.key,
        s.table.kind,
        `a change to "${column}" of a row read from it`,
        column,
      )
    }
    updates.push({ state: s, changed })
  }
}

/** Upserts with one row per (table, conflict columns, conflict values): the last one wins. */
function dedupedUpserts(uow: UnitOfWorkState): RecordedUpsert[] {
  if (uow.upserts.length === 0) return []
  const byKey = new Map<string, RecordedUpsert>()
  const keys = new Map<EntityState, string>()
  for (const u of uow.upserts) {
    if (u.state.status === 'detached') continue
    const key = upsertKey(u.state, u.spec.conflict, uow.owner, 0)
    byKey.set(key, u)
    keys.set(u.state, key)
  }
  // A reference to an earlier upsert of a key is planned as one to the last (see `conflict-ref.ts`).
  for (const [state, key] of keys) if (state.upserted) state.upserted.by = byKey.get(key)!.state
  const out: RecordedUpsert[] = []
  for (const u of byKey.values()) out.push({ state: u.state, spec: u.spec, row: rowAsTaken(u.state) })
  return out
}

/**
 * A copy of `state`'s row as the flush takes it: values that change in place (json, arrays, Dates)
 * copied, so that a change made to them while the flush is in flight shows (see `settleUpserts`).
 */
function rowAsTaken(state: EntityState): Record<string, unknown> {
  const out = { ...state.row }
  for (const name of Object.keys(out)) {
    const value = out[name]
    if (value === null || typeof value !== 'object' || stateOf(value)) continue
    try {
      out[name] = snapshotValue(state.table, name, value)
    } catch {
      // What no column stores: the flush refuses it, naming it.
    }
  }
  return out
}

/**
 * What tells an upsert's row: its table, conflict columns and values. A value that is a new entity
 * whose key the flush gives stands as that entity: a created one by its identity, an upserted one by
 * its own upsert's key (two upserts of one parent key are one row, and so are their children's).
 */
function upsertKey(state: EntityState, conflict: readonly string[], owner: object, depth: number): string {
  const table = state.table
  const standIn = (ref: EntityState, column: string) => keyToCome(ref, column, owner, depth)
  const texts = conflict.map((c) => {
    const column = table.columnsByName.get(c)!
    const value = resolveReference(state.row[c], column, table, owner, standIn)
    if (value instanceof KeyToCome) return value.text
    // NULL conflicts with no NULL (but under NULLS NOT DISTINCT, which is rare): each such upsert is
    // a row of its own, as the server inserts each.
    return value === null ? nullConflict(state) : conflictText(value, column, table)
  })
  return JSON.stringify([table.key, conflict, texts])
}

const nullConflicts = new WeakMap<EntityState, string>()
let nullConflictCount = 0

/** What stands for a NULL conflict value of `state`'s upsert: its own, never another's. */
function nullConflict(state: EntityState): string {
  let text = nullConflicts.get(state)
  if (text === undefined) {
    text = `\u0000null ${nullConflictCount++}` // not a value's text: a NUL is no text's
    nullConflicts.set(state, text)
  }
  return text
}

/**
 * A conflict value as the server compares it (`'1.50'` and `'1.5'` of a numeric, a citext's cases,
 * a char(n)'s trailing spaces are one value: two upserts of them are one row, the last wins); as
 * written where it cannot be a key (null).
 */
function conflictText(value: unknown, column: ColumnModel, table: TableModel): string | null {
  if (value !== null && value !== undefined) {
    try {
      return `k${normalizeKeyValue(value, column)}`
    } catch {
      // Checked as written below: the value's own error.
    }
  }
  const text = encodeValue(value, column, { table: table.key })
  return text === null ? null : `e${text}`
}

/** What stands, in an upsert's conflict values, for a new entity's key that its flush gives. */
class KeyToCome {
  readonly text: string
  constructor(what: string) {
    // Not a value's text: a NUL is no text's.
    this.text = `\u0000${what}`
  }
}

const createdKeys = new WeakMap<EntityState, KeyToCome>()
let createdWithKeysToCome = 0

/** Upserts referencing upserts this deep are told by identity (no real schema nests them so). */
const MAX_DEPTH = 16

/**
 * A stand-in for `ref`'s key in `column` when it is new and the flush gives it (see
 * `resolveReference`): an upserted entity's is decided by the server whatever id it holds.
 */
function keyToCome(ref: EntityState, column: string, owner: object, depth: number): KeyToCome | undefined {
  if (ref.status !== 'new') return undefined
  const upserted = ref.upserted
  if (upserted !== undefined && depth < MAX_DEPTH)
    return new KeyToCome(`upsert ${upsertKey(ref, upserted.conflict, owner, depth + 1)}`)
  if (upserted === undefined && ref.row[column] !== undefined && ref.row[column] !== null) return undefined
  let k = createdKeys.get(ref)
  if (k === undefined) {
    k = new KeyToCome(`new entity ${++createdWithKeysToCome}`)
    createdKeys.set(ref, k)
  }
  return k
}
