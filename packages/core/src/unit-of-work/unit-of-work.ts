import { errors, isPipeflushError } from '../errors.ts'
import type { TableModel } from '../model/model.ts'
import type { UpsertSpec } from '../plan/types.ts'
import { type PendingChanges, resolveReference } from '../track/changes.ts'
import { type Navigate, type Tracker, trackEntity } from '../track/entity-proxy.ts'
import { type Entity, type EntityState, type EntityStatus, stateOf } from '../track/entity-state.ts'
import { rowKey } from '../track/keys.ts'
import { hasMutableColumns, snapshotOf } from '../track/snapshot.ts'
import { describeKeyText, describeValue } from '../values/location.ts'
import { applyFlushed, settleUnchanged } from './apply-flushed.ts'
import { type Checkpoint, checkpoint } from './checkpoint.ts'
import { pendingChanges } from './pending.ts'
import { ReferringIndex } from './referring-index.ts'
import { deletedSince, removeEntity, type SentValues, type ServerFilled, unitOfWorkState } from './state.ts'

/**
 * The state of one unit of work, without I/O: the identity map, the new, changed and removed
 * entities, the upserts, and the bookkeeping after a commit. The entity manager is its facade. This
 * class registers entities and their changes, and owns the state (`state.ts`); what the next flush
 * writes (`pending.ts`), the settling after a commit (`apply-flushed.ts`) and the hooks' checkpoint
 * (`checkpoint.ts`) are each in their own file.
 */
export class UnitOfWork {
  readonly #uow = unitOfWorkState(this)
  /** What its entities call on an assignment or a relation read: one object for all of them. */
  readonly #tracker: Tracker
  /** The indexes of relation reads, by table and columns (see {@link referring}). */
  readonly #referring = new Map<TableModel, Map<readonly string[], ReferringIndex>>()

  /** `navigate` answers reads of relations on its entities (see `navigate.ts`). */
  constructor(navigate?: Navigate) {
    const uow = this.#uow
    const onTouch = (s: EntityState, column: string): void => {
      uow.edits++
      if (s.status === 'managed') uow.touched.add(s)
      uow.outsideHooks?.touched(s, column)
    }
    this.#tracker = { owner: this, onTouch, navigate, scopes: new Map() }
  }

  /**
   * The managed and new entities of `table` grouped by what their `columns` refer to (see
   * `ReferringIndex`): one per table and columns (the same array: a relation's), made when first read.
   */
  referring(table: TableModel, columns: readonly string[]): ReferringIndex {
    let byColumns = this.#referring.get(table)
    if (byColumns === undefined) {
      byColumns = new Map()
      this.#referring.set(table, byColumns)
    }
    let index = byColumns.get(columns)
    if (index === undefined) {
      index = new ReferringIndex(this.#uow, table, columns)
      byColumns.set(columns, index)
    }
    return index
  }

  /** The managed and new entities of `table` (removed and detached ones left out). */
  statesOf(table: string): EntityState[] {
    const out: EntityState[] = []
    for (const s of this.#uow.map.ofTable(table)) if (s.status === 'managed') out.push(s)
    for (const s of this.#uow.created) if (s.table.key === table && s.status === 'new') out.push(s)
    return out
  }

  /** How many creations, assignments, removals and upserts this unit of work has seen: a change counter. */
  get edits(): number {
    return this.#uow.edits
  }

  /** How many times {@link clear} was called: a flush's settling compares it with the count at its start. */
  get clears(): number {
    return this.#uow.clears
  }

  /**
   * A new entity of `table` over `row` (a copy the caller made): `new` ones are inserted by the next
   * flush, `managed` ones are rows the database holds (read or merged), tracked in the identity map.
   * A `managed` row whose key is already mapped returns the mapped entity's state instead. A row of a
   * view without a key is not mapped: it is read-only, and compared at each flush only when its values
   * can change in place (see {@link pending}).
   *
   * `since`: a row a read brings back, the read started when {@link readStarts} gave `since`. A row
   * this unit's own commit deleted after that (the read answered after the flush, on another
   * connection of the pool) is the row as it was: it is not tracked again, and the state returned is
   * detached.
   */
  add(
    table: TableModel,
    row: Record<string, unknown>,
    status: 'new' | 'managed',
    since?: number,
  ): EntityState {
    const map = this.#uow.map
    if (status === 'managed') {
      if (table.kind !== 'table' && table.primaryKey.length === 0)
        return this.#state(table, row, 'managed', snapshotOf(table, row))
      const key = storedKey(table, row)
      if (key === null) {
        throw errors.storedKeyMissing(table.key, table.primaryKey)
      }
      const known = map.get(table.key, key)
      if (known) return known
      const uow = this.#uow
      if (since !== undefined && uow.deletedWhileReading.size > 0 && deletedSince(uow, table.key, key, since))
        return this.#state(table, row, 'detached', null)
      const state = this.#state(table, row, 'managed', snapshotOf(table, row))
      state.key = key
      map.setIndexed(state)
      return state
    }
    const key = keyHoldsEntity(table, row) ? entityKey(table, row, this) : rowKey(table, row)
    // A removed row's key may be taken by a new row: the flush deletes the old row first.
    if (key !== null && map.get(table.key, key)?.status === 'managed') {
      throw errors.alreadyManaged(table.key, describeKeyText(key), key)
    }
    const state = this.#state(table, row, 'new', null)
    this.#uow.created.add(state)
    this.#uow.edits++
    this.#uow.outsideHooks?.changed(state)
    return state
  }

  /** The entity managed under `key` (canonical, see `rowKey`) in `table`, if any. */
  get(table: string, key: string): EntityState | undefined {
    return this.#uow.map.get(table, key)
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
    this.#uow.upserts.push({ state, spec })
    this.#uow.edits++
    this.#uow.outsideHooks?.changed(state)
    return state
  }

  /** Marks a managed entity for deletion; a new one is simply forgotten. */
  remove(state: EntityState): void {
    removeEntity(this.#uow, state)
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

  /** What the next flush would write, entity by entity (`pending.ts`). */
  pending(): PendingChanges {
    return pendingChanges(this.#uow)
  }

  /** How many upserts are recorded (the ones a flush sends are dropped after it commits). */
  get upsertCount(): number {
    return this.#uow.upserts.length
  }

  /** After a commit, what was sent becomes what the entities hold (`apply-flushed.ts`). */
  applyFlushed(
    pending: PendingChanges,
    sent: SentValues,
    upsertCount: number,
    filled?: ServerFilled,
    editsAtPending?: number,
    clearsAtPending?: number,
  ): void {
    applyFlushed(this.#uow, pending, sent, upsertCount, filled, editsAtPending, clearsAtPending)
  }

  /**
   * After a flush that had nothing to write: what assignments left unchanged settles (an entity
   * given as a foreign-key value standing for the key the row holds becomes that key).
   */
  settleUnchanged(): void {
    settleUnchanged(this.#uow)
  }

  /**
   * A flush begins: until {@link endFlush}, its rows and statuses may be written past the entities
   * (the ids a flush gives, what it settles, the hooks' changes it takes back), so what was made from
   * them is checked in full at each read (see `ReferringIndex`). Everything else that changes them
   * counts as an edit or changes the identity map or the new entities.
   */
  beginFlush(): void {
    this.#uow.flushing++
  }

  /**
   * A read that tracks rows starts: what it gives {@link add} for its rows, and it calls
   * {@link readEnds} once it is over, after tracking them.
   *
   * @example
   * const since = uow.readStarts()
   * try {
   *   const row = await loads.add(key, where)
   *   if (row) uow.add(table, row, 'managed', since)
   * } finally {
   *   uow.readEnds()
   * }
   */
  readStarts(): number {
    this.#uow.reading++
    return this.#uow.deleting
  }

  /** A read begun by {@link readStarts} is over (tracked its rows, or failed). */
  readEnds(): void {
    const uow = this.#uow
    if (uow.reading > 0 && --uow.reading === 0 && uow.deletedWhileReading.size > 0)
      uow.deletedWhileReading.clear()
  }

  /** The flush begun by {@link beginFlush} ended, whatever its outcome. */
  endFlush(): void {
    this.#uow.flushing--
    this.#uow.flushed++
  }

  /** Remembers the unit of work before the flush hooks run, to take their changes back (`checkpoint.ts`). */
  checkpoint(): Checkpoint {
    return checkpoint(this.#uow)
  }

  /** Forgets every entity (they become detached) and every pending change. */
  clear(): void {
    const uow = this.#uow
    for (const s of [...uow.map.values(), ...uow.created]) s.status = 'detached'
    uow.map.clear()
    uow.created.clear()
    uow.removed.clear()
    uow.touched.clear()
    uow.watch.clear()
    uow.upserts.length = 0
    uow.clears++
    // The relation indexes hold the entities they saw: let go of with them.
    this.#referring.clear()
  }

  #state(
    table: TableModel,
    row: Record<string, unknown>,
    status: EntityStatus,
    snapshot: Record<string, unknown> | null,
  ): EntityState {
    const state = trackEntity(table, row, status, snapshot, this.#tracker)
    if (status === 'managed' && hasMutableColumns(table)) this.#uow.watch.add(state)
    return state
  }
}

/** Whether a key column of `row` holds an entity (a row keyed by another row's key). */
function keyHoldsEntity(table: TableModel, row: Record<string, unknown>): boolean {
  for (const name of table.primaryKey) if (stateOf(row[name])) return true
  return false
}

/** `rowKey` of a stored row: a key value that cannot be a key is named as the stored row's. */
function storedKey(table: TableModel, row: Record<string, unknown>): string | null {
  try {
    return rowKey(table, row)
  } catch (e) {
    if (!isPipeflushError(e, 'INVALID_VALUE')) throw e
    const column = e.column ?? table.primaryKey[0]!
    throw errors.storedKeyUnfit(table.key, column, describeValue(row[column]))
  }
}

/**
 * The key of a new row some key column of which holds an entity, that entity standing for its own key
 * (as the flush writes it): null while a part is not known (an id not assigned yet), or the entity
 * cannot stand for the column (the flush tells why).
 */
function entityKey(table: TableModel, row: Record<string, unknown>, owner: object): string | null {
  const values: Record<string, unknown> = {}
  for (const name of table.primaryKey) {
    const value = row[name]
    if (!stateOf(value)) {
      values[name] = value
      continue
    }
    try {
      values[name] = resolveReference(value, table.columnsByName.get(name)!, table, owner, unassigned)
    } catch {
      return null
    }
  }
  return rowKey(table, values)
}

/** A referenced entity's key not known yet: no key to compare (undefined is no part). */
function unassigned(): undefined {
  return undefined
}

export type { Entity, SentValues, ServerFilled }
