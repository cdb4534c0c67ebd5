import type { TableModel } from '../model/model.ts'

/** Where an entity is in its life. */
export type EntityStatus = 'new' | 'managed' | 'removed' | 'detached'

/** A row as the application sees it: its columns by name. */
export type Entity = Record<string, unknown>

/**
 * What graph loads recorded of an entity's relations, each by relation name (see `relation-reads.ts`):
 * the counts they read (`$count`), the foreign key a many-to-one was read for, and the order its
 * related rows were read in (`$orderBy`). Undefined until a load records one.
 */
export interface RelationReads {
  counts: Map<string, number> | undefined
  references: Map<string, string | null> | undefined
  orders: Map<string, ReadonlyMap<EntityState, number>> | undefined
}

/** What the unit of work knows about one entity. The entity itself is a Proxy over `row`. */
export interface EntityState {
  readonly table: TableModel
  status: EntityStatus
  /** The values the application sees and assigns. */
  readonly row: Record<string, unknown>
  /**
   * The values the database holds (decoded), for dirty checking; null for new entities (a new entity
   * a flush is writing holds what it sends). A snapshot kept as sent (see `SentSnapshot`) is made
   * whole when read here.
   */
  snapshot: Record<string, unknown> | null
  /**
   * The snapshot as held, not made whole: possibly kept as sent (see `Kept` in `sent-snapshot.ts`: a
   * `SentSnapshot`, or a Date's time), as a large insert's entity holds it once its values are checked.
   */
  heldSnapshot: Record<string, unknown> | number | null
  /** Identity-map key (canonical primary key), once known. */
  key: string | null
  /** The unit of work that tracks it. */
  readonly owner: object
  /** The proxy handed to the application. */
  entity: Entity
  /** The relations whose related rows a graph load read for this entity (by relation name). */
  loaded?: Set<string> | undefined
  /** What graph loads recorded of this entity's relations besides (see `relation-reads.ts`). */
  relationReads?: RelationReads | undefined
  /**
   * Whether this unit of work inserted its row (a flush of its, not an upsert): no row stored before
   * referred to it, so every one-to-many, one-to-one and many-to-many of it is the entities this unit
   * of work holds, as while it was new.
   */
  insertedHere?: boolean
  /**
   * Set while the entity is an upsert not flushed yet: its conflict columns and their values when
   * upserted. A reference to it is resolved in SQL by these (see `plan/rows/conflict-ref.ts`).
   */
  upserted?:
    | {
        readonly conflict: readonly string[]
        readonly values: readonly unknown[]
        /** Its key columns not given (the flush may give them ids, which only stand if it inserts). */
        readonly unkeyed: readonly string[]
        /** The last upsert of the same conflict values in the unit of work (which the flush sends). */
        by?: EntityState | undefined
      }
    | undefined
}

/**
 * The property an entity's Proxy answers with its state. Internal (the package does not export it),
 * and no own property of the entity: spreading or serializing an entity does not copy it.
 */
export const STATE: unique symbol = Symbol('pipeflush.state')

/** States of objects that are not entity proxies (see {@link registerState}). */
const states = new WeakMap<object, EntityState>()

/**
 * The state behind an entity, or undefined when `value` is not an entity of pipeflush.
 *
 * An entity given as a value (a foreign key, `remove(entity)`) is recognised, its owner checked, by it.
 */
export function stateOf(value: unknown): EntityState | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const state = (value as { [STATE]?: EntityState })[STATE]
  return state !== undefined ? state : states.get(value)
}

/**
 * Records `state` as the state of `object`, for objects whose Proxy does not answer {@link STATE}
 * (entity proxies answer it themselves, without a WeakMap entry).
 */
export function registerState(object: object, state: EntityState): void {
  states.set(object, state)
}
