import { errors } from '../errors.ts'
import type { TableModel } from '../model/model.ts'
import { givenColumn, writableColumn } from '../schema/checks.ts'
import { sameValue } from '../values/index.ts'
import {
  type Entity,
  type EntityState,
  type EntityStatus,
  type RelationReads,
  STATE,
} from './entity-state.ts'
import { isKept, wholeSnapshot } from './sent-snapshot.ts'

/** What {@link Navigate} answers for a property that is not a relation of the entity's table. */
export const NOT_A_RELATION: unique symbol = Symbol('pipeflush.notARelation')

/**
 * Reads relation `name` of the entity of `state` (its related entities as loaded), or answers
 * {@link NOT_A_RELATION}.
 */
export type Navigate = (state: EntityState, name: string) => unknown

/** What the entities of one unit of work call on an assignment and on a read of a relation. */
export interface Tracker {
  /** The unit of work the entities belong to (`EntityState.owner`). */
  readonly owner: object
  /** Told of every assignment to one of the entities. */
  readonly onTouch: (state: EntityState, column: string) => void
  /** Answers reads of relations (see {@link Navigate}); without it, only columns are read. */
  readonly navigate?: Navigate | undefined
  /** What its entities share per table, made by `trackEntity` when first asked (empty at first). */
  readonly scopes: Map<TableModel, unknown>
}

/** What few entities of a unit of work have: relations a graph load read, an upsert not flushed yet. */
class Rare {
  loaded: Set<string> | undefined = undefined
  relationReads: RelationReads | undefined = undefined
  upserted: EntityState['upserted'] = undefined
}

/**
 * An entity's state, which is also its Proxy's handler (its traps on the prototype): one object per
 * entity beside its row and the Proxy, and the handler answers {@link STATE} with itself, so finding
 * the state of an entity needs no map. Every field is set in the constructor: one shape for all. What
 * few entities have (relations loaded, an upsert) is kept in one object made when first set, and the
 * table and the tracker (whose owner is the entity's) in one shared by the entities of the table in
 * the unit of work: 80 bytes per entity. Its snapshot may be kept as sent (see `SentSnapshot`):
 * reading `snapshot`, or an assignment, makes it whole.
 */
class TrackedState implements EntityState, ProxyHandler<Record<string, unknown>> {
  /** Its table and tracker, shared with the other entities of its table in its unit of work. */
  readonly #scope: Scope
  status: EntityStatus
  readonly row: Record<string, unknown>
  #snapshot: Record<string, unknown> | number | null
  key: string | null = null
  insertedHere = false
  entity: Entity
  #rare: Rare | undefined = undefined

  constructor(
    scope: Scope,
    row: Record<string, unknown>,
    status: EntityStatus,
    snapshot: Record<string, unknown> | null,
  ) {
    this.#scope = scope
    this.status = status
    this.row = row
    this.#snapshot = snapshot
    this.entity = row
  }

  get table(): TableModel {
    return this.#scope.table
  }

  get tracker(): Tracker {
    return this.#scope.tracker
  }

  get owner(): object {
    return this.#scope.tracker.owner
  }

  /** The snapshot, a snapshot kept as sent made whole first (see `SentSnapshot`). */
  get snapshot(): Record<string, unknown> | null {
    const held = this.#snapshot
    if (!isKept(held)) return held
    const whole = wholeSnapshot(held, this)
    this.#snapshot = whole
    return whole
  }

  set snapshot(snapshot: Record<string, unknown> | null) {
    this.#snapshot = snapshot
  }

  get heldSnapshot(): Record<string, unknown> | number | null {
    return this.#snapshot
  }

  set heldSnapshot(held: Record<string, unknown> | number | null) {
    this.#snapshot = held
  }

  get loaded(): Set<string> | undefined {
    return this.#rare?.loaded
  }

  set loaded(loaded: Set<string> | undefined) {
    this.#rare ??= new Rare()
    this.#rare.loaded = loaded
  }

  get relationReads(): RelationReads | undefined {
    return this.#rare?.relationReads
  }

  set relationReads(reads: RelationReads | undefined) {
    this.#rare ??= new Rare()
    this.#rare.relationReads = reads
  }

  get upserted(): EntityState['upserted'] {
    return this.#rare?.upserted
  }

  set upserted(upserted: EntityState['upserted']) {
    this.#rare ??= new Rare()
    this.#rare.upserted = upserted
  }

  // Rows have no prototype (a column may be named __proto__); entities still behave as plain objects.
  get(target: Record<string, unknown>, prop: string | symbol, receiver: unknown): unknown {
    if (typeof prop === 'string') {
      if (Object.hasOwn(target, prop) || this.table.columnsByName.has(prop)) return target[prop]
      const navigate = this.tracker.navigate
      if (navigate !== undefined) {
        const related = navigate(this, prop)
        if (related !== NOT_A_RELATION) return related
      }
    } else if (prop === STATE) {
      return this
    }
    return Reflect.get(Object.prototype, prop, receiver)
  }

  getPrototypeOf(): object {
    return Object.prototype
  }

  has(target: Record<string, unknown>, prop: string | symbol): boolean {
    return (typeof prop === 'string' && Object.hasOwn(target, prop)) || prop in Object.prototype
  }

  preventExtensions(): boolean {
    throw errors.entityFrozen(this.table.key)
  }

  set(target: Record<string, unknown>, prop: string | symbol, value: unknown): boolean {
    if (typeof prop === 'symbol') return Reflect.set(target, prop, value)
    const table = this.table
    const stored = this.status === 'managed'
    const key = table.primaryKey.includes(prop)
    // A stored row's key may be assigned the value it has (in any form); a column the server fills
    // on every write (identity always) may not be assigned at all.
    const column =
      this.status === 'new'
        ? givenColumn(table, prop, value)
        : writableColumn(table, prop, stored && !key ? 'update' : 'insert')
    if (this.status === 'removed' || this.status === 'detached') {
      throw errors.assignToEntityIn(table.key, prop, this.status)
    }
    if (stored && key && !sameValue(target[prop], value, column)) {
      throw errors.storedKeyChanged(table.key, prop)
    }
    // A column the key is generated from: changing it changes the key.
    const generates = stored ? table.keyInputs?.get(prop) : undefined
    if (generates !== undefined && !sameValue(target[prop], value, column)) {
      throw errors.keyInputChanged(table.key, prop, generates)
    }
    if (prop === table.versionColumn && this.status === 'managed') {
      throw errors.versionAssigned(table.key, prop)
    }
    // The row stops standing for what was sent: the snapshot is made whole before it changes.
    if (isKept(this.#snapshot)) this.#snapshot = wholeSnapshot(this.#snapshot, this)
    target[prop] = value
    this.tracker.onTouch(this, prop)
    return true
  }

  deleteProperty(_target: Record<string, unknown>, prop: string | symbol): boolean {
    throw errors.propertyDeleted(this.table.key, String(prop))
  }

  defineProperty(_target: Record<string, unknown>, prop: string | symbol): boolean {
    throw errors.propertyDefined(this.table.key, String(prop))
  }
}

/**
 * A tracked entity of `table` over `row` (a copy the caller made): its state, whose `entity` is a
 * Proxy over `row`. Reading a column is a plain property read; assigning a column is a change the next
 * flush writes (`tracker.onTouch` is told); an unknown column, a primary key or version column of a
 * stored row, or any write to a removed entity is a clear error at once. Reading a relation of the
 * table (not a column) gives `tracker.navigate`'s answer. `stateOf(entity)` gives the state back.
 *
 * Entities stay plain-looking objects while every assignment is seen, and checked, at once.
 */
export function trackEntity(
  table: TableModel,
  row: Record<string, unknown>,
  status: EntityStatus,
  snapshot: Record<string, unknown> | null,
  tracker: Tracker,
): EntityState {
  const state = new TrackedState(scopeOf(table, tracker), row, status, snapshot)
  state.entity = new Proxy(row, state)
  return state
}

/** A table and a tracker: what the entities of a table share in a unit of work. */
interface Scope {
  readonly table: TableModel
  readonly tracker: Tracker
}

/** The scope of `table` in `tracker`'s unit of work, made when first asked (a unit of work has few tables). */
function scopeOf(table: TableModel, tracker: Tracker): Scope {
  let scope = tracker.scopes.get(table) as Scope | undefined
  if (scope === undefined) {
    scope = { table, tracker }
    tracker.scopes.set(table, scope)
  }
  return scope
}
