import { errors } from '../errors.ts'
import type { ChangeSet, UpsertSpec } from '../plan/types.ts'
import type { ColumnModel, TableModel } from '../schema/model.ts'
import { changedColumns, type PendingChanges, referencedKey, resolvedValues } from '../track/changes.ts'
import { makeEntity, type Navigate } from '../track/entity-proxy.ts'
import { type Entity, type EntityState, type EntityStatus, stateOf } from '../track/entity-state.ts'
import { rowKey } from '../track/keys.ts'
import { emptyRow } from '../track/row.ts'
import { hasMutableColumns, snapshotOf } from '../track/snapshot.ts'
import { encodeValue, sameValue } from '../values/index.ts'
import { describeKeyText } from '../values/location.ts'
import { IdentityMap } from './identity-map.ts'
import { settleUpserts } from './settle-upserts.ts'

/**
 * The values the server filled, by entity (what the flush's answer held, `flush/server-filled.ts`):
 * decoded twice, so the row and the snapshot share no object.
 */
export type ServerFilled = ReadonlyMap<
  EntityState,
  { readonly row: Record<string, unknown>; readonly snapshot: Record<string, unknown> }
>
/** What a flush sent for each entity it inserted or updated: their snapshots once it committed. */
export type SentValues = ReadonlyMap<EntityState, Record<string, unknown>>

/**
 * The state of one unit of work, without I/O: the identity map, the new, changed and removed
 * entities, the upserts, and the bookkeeping after a commit. The entity manager is its facade.
 *
 * @example
 * const uow = new UnitOfWork()
 * const state = uow.add(bookTable, { id: 1, title: 'Notes' }, 'new')
 * uow.pending().inserts.length // 1
 */
export class UnitOfWork {
  readonly #map = new IdentityMap()
  /** New entities in creation order. */
  readonly #created = new Set<EntityState>()
  readonly #removed = new Set<EntityState>()
  /** Managed entities assigned since the last flush. */
  readonly #touched = new Set<EntityState>()
  /** Managed entities with values that change in place (json, arrays, bytea, timestamps): compared at every flush. */
  readonly #watch = new Set<EntityState>()
  readonly #upserts: { state: EntityState; spec: UpsertSpec }[] = []
  /** Counts creations, assignments, removals and upserts (see {@link edits}). */
  #edits = 0
  /** What an assignment to an entity does (one function for every entity). */
  readonly #onTouch = (s: EntityState): void => {
    this.#edits++
    if (s.status === 'managed') this.#touched.add(s)
  }

  readonly #navigate: Navigate | undefined

  /** `navigate` answers reads of relations on its entities (see `navigate.ts`). */
  constructor(navigate?: Navigate) {
    this.#navigate = navigate
  }

  /** The managed and new entities of `table` (removed and detached ones left out). */
  statesOf(table: string): EntityState[] {
    const out: EntityState[] = []
    for (const s of this.#map.ofTable(table)) if (s.status === 'managed') out.push(s)
    for (const s of this.#created) if (s.table.key === table && s.status === 'new') out.push(s)
    return out
  }

  /** How many creations, assignments, removals and upserts this unit of work has seen: a change counter. */
  get edits(): number {
    return this.#edits
  }

  /**
   * A new entity of `table` over `row` (a copy the caller made): `new` ones are inserted by the next
   * flush, `managed` ones are rows the database holds (read or merged), tracked in the identity map.
   * A `managed` row whose key is already mapped returns the mapped entity's state instead. A row of a
   * view without a key is not mapped: it is read-only, and compared at each flush only when its values
   * can change in place (see {@link pending}).
   */
  add(table: TableModel, row: Record<string, unknown>, status: 'new' | 'managed'): EntityState {
    if (status === 'managed') {
      if (table.kind !== 'table' && table.primaryKey.length === 0)
        return this.#state(table, row, 'managed', snapshotOf(table, row))
      const key = rowKey(table, row)
      if (key === null) {
        throw errors.storedKeyMissing(table.key, table.primaryKey)
      }
      const known = this.#map.get(table.key, key)
      if (known) return known
      const state = this.#state(table, row, 'managed', snapshotOf(table, row))
      state.key = key
      this.#map.set(state)
      return state
    }
    const key = keyHoldsEntity(table, row) ? null : rowKey(table, row)
    if (key !== null && this.#map.get(table.key, key)) {
      throw errors.alreadyManaged(table.key, describeKeyText(key), key)
    }
    const state = this.#state(table, row, 'new', null)
    this.#created.add(state)
    this.#edits++
    return state
  }

  /** The entity managed under `key` (canonical, see `rowKey`) in `table`, if any. */
  get(table: string, key: string): EntityState | undefined {
    return this.#map.get(table, key)
  }

  /**
   * Records an upsert of `row`: a new entity, which references resolve by its conflict values until
   * the flush; managed afterwards (see `settleUpserts`).
   */
  upsert(table: TableModel, row: Record<string, unknown>, spec: UpsertSpec): EntityState {
    const state = this.#state(table, row, 'new', null)
    const values = spec.conflict.map((name) => row[name])
    state.upserted = {
      conflict: spec.conflict,
      values,
      unkeyed: table.primaryKey.filter((k) => row[k] == null),
    }
    this.#upserts.push({ state, spec })
    this.#edits++
    return state
  }

  /** Marks a managed entity for deletion; a new one is simply forgotten. */
  remove(state: EntityState): void {
    this.#edits++
    if (state.status === 'new') {
      this.#created.delete(state)
      state.status = 'detached'
    } else if (state.status === 'managed') {
      state.status = 'removed'
      this.#removed.add(state)
    }
  }

  /** The state of an entity of this unit of work, or `INVALID_STATE`. */
  own(entity: unknown): EntityState {
    const state = stateOf(entity)
    if (!state || state.owner !== this) {
      throw errors.notThisManager()
    }
    return state
  }

  /** The status of `entity` if it belongs to this unit of work. */
  statusOf(entity: unknown): EntityStatus | undefined {
    const s = stateOf(entity)
    return s && s.owner === this ? s.status : undefined
  }

  /**
   * What the next flush would write, entity by entity (references not resolved yet). A row of a view
   * changed in place (an assignment is refused at once) is `UNSUPPORTED_TABLE`: views are not written.
   */
  pending(): PendingChanges {
    const updates: { state: EntityState; changed: string[] }[] = []
    for (const s of new Set([...this.#touched, ...this.#watch])) {
      if (s.status !== 'managed') continue
      const changed = changedColumns(s, this)
      if (changed.length === 0) continue
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
    return {
      inserts: [...this.#created],
      updates,
      deletes: [...this.#removed],
      upserts: this.#dedupedUpserts(),
    }
  }

  /** How many upserts are recorded (the ones a flush sends are dropped after it commits). */
  get upsertCount(): number {
    return this.#upserts.length
  }

  /**
   * The row of every inserted or updated entity as the flush sends it, references resolved. `changes`,
   * the change set made of `pending` (`toChangeSet`), spares resolving the references again.
   */
  sentValues(pending: PendingChanges, changes?: ChangeSet): SentValues {
    const out = new Map<EntityState, Record<string, unknown>>()
    pending.inserts.forEach((s, i) => {
      // The resolved values hold every column the row holds: the snapshot of either is the same.
      out.set(s, snapshotOf(s.table, changes?.inserts[i]?.values ?? { ...s.row, ...resolvedValues(s, this) }))
    })
    for (const [i, { state, changed }] of pending.updates.entries()) {
      const set = changes?.updates[i]?.set ?? resolvedValues(state, this, changed)
      const values = { ...state.snapshot, ...set }
      const version = state.table.versionColumn
      if (version) values[version] = Number(state.snapshot?.[version]) + 1
      out.set(state, snapshotOf(state.table, values))
    }
    return out
  }

  /**
   * After a commit: new entities become managed, updated ones take what was sent as their snapshot
   * (an entity given as a foreign-key value is replaced by its id, unless reassigned meanwhile),
   * removed ones are forgotten, the `upsertCount` first upserts are dropped, their entities managed
   * (see `settleUpserts`). Changes made while the flush was in flight stay pending. `editsAtPending`, the {@link edits} count when `pending` was
   * taken: when nothing was edited since, the flushed entities are known to equal what was sent and
   * are not compared again.
   */
  applyFlushed(
    pending: PendingChanges,
    sent: SentValues,
    upsertCount: number,
    filled: ServerFilled = new Map(),
    editsAtPending?: number,
  ): void {
    const quiet = editsAtPending === this.#edits
    const sentOf = inOrder(sent)
    // Upserts first: the rows referencing them settle with the keys they got (see #settle).
    settleUpserts(this.#upserts.slice(0, upsertCount), filled, this.#map, (s) => {
      if (hasMutableColumns(s.table)) this.#watch.add(s)
    })
    for (const s of pending.inserts) {
      // A new entity removed while the flush was in flight is in the database now: its delete is pending.
      const removedMeanwhile = s.status === 'detached'
      this.#settle(s, sentOf(s), filled)
      s.key = rowKey(s.table, s.row)
      if (!quiet) this.#created.delete(s)
      if (s.key === null) {
        // Its key was left to the server and did not come back (a trigger dropped the row): it
        // cannot be told apart from other rows, so it is no longer tracked.
        s.status = 'detached'
        continue
      }
      s.status = 'managed'
      this.#map.set(s)
      if (!quiet) this.#touched.add(s) // assigned while in flight, maybe: compared below
      if (hasMutableColumns(s.table)) this.#watch.add(s)
      if (removedMeanwhile) this.remove(s)
    }
    // Nothing created or removed since `pending` was taken: the new entities are exactly its inserts.
    if (quiet) this.#created.clear()
    for (const { state } of pending.updates) {
      this.#settle(state, sentOf(state), filled)
      if (quiet) this.#touched.delete(state)
    }
    for (const s of pending.deletes) {
      s.status = 'detached'
      this.#removed.delete(s)
      this.#map.delete(s)
      this.#watch.delete(s)
    }
    for (const s of this.#touched) {
      if (s.status !== 'managed' || !this.#changed(s)) this.#touched.delete(s)
    }
    this.#upserts.splice(0, upsertCount)
  }

  /**
   * Remembers the unit of work as it is, before code that may change it (the flush hooks). Call
   * `settled()` once that code is done; `undo()` then takes back what it changed (entities created,
   * columns assigned, entities removed, upserts), leaving what changed after `settled()`, and entities
   * loaded meanwhile, as they are.
   *
   * @example
   * const mark = uow.checkpoint()
   * await runHooks()
   * mark.settled()
   * try { await send() } catch (e) { mark.undo(); throw e }
   */
  checkpoint(): { settled(): void; undo(): void } {
    const known = [...this.#map.values(), ...this.#created]
    const before = new Map(known.map((s) => [s, { status: s.status, row: { ...s.row } }]))
    const created = new Set(this.#created)
    const upserts = this.#upserts.length
    let after: Map<EntityState, { status: EntityStatus; row: Record<string, unknown> }> | undefined
    let hookCreated: EntityState[] = []
    let hookUpserts = 0
    return {
      settled: () => {
        after = new Map(known.map((s) => [s, { status: s.status, row: { ...s.row } }]))
        hookCreated = [...this.#created].filter((s) => !created.has(s))
        hookUpserts = this.#upserts.length - upserts
      },
      undo: () => {
        if (after === undefined) this.#undoAll(before, created, upserts)
        else this.#undoHooks(before, after, hookCreated, upserts, hookUpserts)
      },
    }
  }

  /** Undo of a checkpoint whose code failed: everything back as it was. */
  #undoAll(
    before: ReadonlyMap<EntityState, { status: EntityStatus; row: Record<string, unknown> }>,
    created: ReadonlySet<EntityState>,
    upserts: number,
  ): void {
    const now = new Map([...before.keys()].map((s) => [s, { status: s.status, row: { ...s.row } }]))
    this.#undoHooks(
      before,
      now,
      [...this.#created].filter((s) => !created.has(s)),
      upserts,
      this.#upserts.length - upserts,
    )
  }

  /** Takes back what changed between `before` and `after`, where nothing changed it since. */
  #undoHooks(
    before: ReadonlyMap<EntityState, { status: EntityStatus; row: Record<string, unknown> }>,
    after: ReadonlyMap<EntityState, { status: EntityStatus; row: Record<string, unknown> }>,
    hookCreated: readonly EntityState[],
    upserts: number,
    hookUpserts: number,
  ): void {
    for (const [s, was] of before) {
      const then = after.get(s)!
      for (const name of new Set([...Object.keys(was.row), ...Object.keys(then.row)])) {
        const had = Object.hasOwn(was.row, name)
        if (s.row[name] !== then.row[name] || (had && was.row[name] === then.row[name])) continue
        if (!had && Object.hasOwn(then.row, name)) delete s.row[name]
        else s.row[name] = was.row[name]
      }
      if (s.status !== then.status || was.status === then.status) continue
      if (then.status === 'removed') this.#removed.delete(s)
      if (was.status === 'new') this.#created.add(s)
      s.status = was.status
    }
    for (const s of hookCreated) {
      if (s.status !== 'new') continue
      this.#created.delete(s)
      s.status = 'detached'
    }
    this.#upserts.splice(upserts, hookUpserts)
  }

  /** Forgets every entity (they become detached) and every pending change. */
  clear(): void {
    for (const s of [...this.#map.values(), ...this.#created]) s.status = 'detached'
    this.#map.clear()
    this.#created.clear()
    this.#removed.clear()
    this.#touched.clear()
    this.#watch.clear()
    this.#upserts.length = 0
  }

  /**
   * The sent values become the snapshot; references the flush resolved become the ids they stood for;
   * values the server filled go to the snapshot, and to the row unless assigned while the flush was in
   * flight (a generated column always).
   */
  #settle(s: EntityState, snapshot: Record<string, unknown> | undefined, filled: ServerFilled): void {
    if (snapshot === undefined) return
    const server = filled.get(s)
    if (server !== undefined) {
      for (const name of Object.keys(server.snapshot)) {
        snapshot[name] = server.snapshot[name]
        const now = s.row[name]
        // A key column the server filled may have been given as null (left to the server too).
        const unset = now === undefined || (now === null && s.table.primaryKey.includes(name))
        if (unset || s.table.columnsByName.get(name)?.generated) s.row[name] = server.row[name]
      }
    }
    for (const c of s.table.columns) {
      const now = s.row[c.name]
      // A reference to an upserted row was sent as a lookup: its key is known now.
      const id = snapshot[c.name] === undefined && stateOf(now) ? this.#resolvedOrSelf(now, c, s) : undefined
      if (id !== undefined && !stateOf(id)) snapshot[c.name] = id
      if (stateOf(now) && sameValue(this.#resolvedOrSelf(now, c, s), snapshot[c.name], c))
        s.row[c.name] = snapshot[c.name]
    }
    const version = s.table.versionColumn
    if (version) s.row[version] = snapshot[version]
    s.snapshot = snapshot
  }

  /**
   * The key a reference stands for, whatever its entity's state now (it may have been removed while
   * the flush was in flight), or the reference itself when it cannot stand for the column.
   */
  #resolvedOrSelf(value: unknown, column: ColumnModel, s: EntityState): unknown {
    const ref = stateOf(value)
    if (!ref) return value
    try {
      const key = referencedKey(ref, column, s.table).value
      return stateOf(key)
        ? this.#resolvedOrSelf(
            key,
            ref.table.columnsByName.get(referencedKey(ref, column, s.table).column)!,
            ref,
          )
        : key
    } catch {
      return value
    }
  }

  /** Whether `s` has changes to write (when they cannot be computed now, the next flush reports why). */
  #changed(s: EntityState): boolean {
    try {
      return changedColumns(s, this).length > 0
    } catch {
      return true
    }
  }

  #state(
    table: TableModel,
    row: Record<string, unknown>,
    status: EntityStatus,
    snapshot: Record<string, unknown> | null,
  ): EntityState {
    const state: EntityState = { table, status, row, snapshot, key: null, owner: this, entity: row }
    makeEntity(state, this.#onTouch, this.#navigate)
    if (status === 'managed' && hasMutableColumns(table)) this.#watch.add(state)
    return state
  }

  /** Upserts with one row per (table, conflict columns, conflict values): the last one wins. */
  #dedupedUpserts(): { state: EntityState; spec: UpsertSpec }[] {
    const byKey = new Map<string, { state: EntityState; spec: UpsertSpec }>()
    const keys = new Map<EntityState, string>()
    for (const u of this.#upserts) {
      if (u.state.status === 'detached') continue
      const values = resolvedValues(u.state, this, u.spec.conflict)
      const texts = u.spec.conflict.map((c) =>
        encodeValue(values[c], u.state.table.columnsByName.get(c)!, { table: u.state.table.key }),
      )
      const key = JSON.stringify([u.state.table.key, u.spec.conflict, texts])
      byKey.set(key, u)
      keys.set(u.state, key)
    }
    // A reference to an earlier upsert of a key is planned as one to the last (see `conflict-ref.ts`).
    for (const [state, key] of keys) if (state.upserted) state.upserted.by = byKey.get(key)!.state
    return [...byKey.values()]
  }
}

/** Whether a key column of `row` holds an entity (a row keyed by another row's key). */
function keyHoldsEntity(table: TableModel, row: Record<string, unknown>): boolean {
  for (const name of table.primaryKey) if (stateOf(row[name])) return true
  return false
}

/**
 * A lookup of `sent` for entities asked in the order it holds them (as the flush took them): each
 * answer is the next entry, without hashing (a flush of 100,000 rows spent most of its settling in
 * lookups); the first entity out of that order turns it into plain lookups.
 */
function inOrder(sent: SentValues): (state: EntityState) => Record<string, unknown> | undefined {
  let entries: Iterator<[EntityState, Record<string, unknown>]> | undefined = sent.entries()
  return (state) => {
    if (entries !== undefined) {
      const next = entries.next()
      if (!next.done && next.value[0] === state) return next.value[1]
      entries = undefined
    }
    return sent.get(state)
  }
}

/** A copy of `values` as a row without prototype (a column may be named `__proto__`). */
export function rowOf(values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const row = emptyRow()
  for (const name of Object.keys(values)) row[name] = values[name]
  return row
}

export type { Entity }
