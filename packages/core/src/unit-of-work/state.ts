import type { EntityState } from '../track/entity-state.ts'
import type { UpsertSpec } from '../track/upsert-spec.ts'
import { CreatedList } from './created-list.ts'
import { IdentityMap } from './identity-map.ts'
import type { OutsideHooks } from './outside-hooks.ts'
import { WatchList } from './watch-list.ts'

/**
 * The values the server filled, by entity (what the flush's answer held, `flush/server-filled.ts`):
 * decoded twice, so the row and the snapshot share no object.
 */
export type ServerFilled = ReadonlyMap<
  EntityState,
  { readonly row: Record<string, unknown>; readonly snapshot: Record<string, unknown> }
>
export type { SentValues } from '../plan/types.ts'

/** An upsert recorded by `UnitOfWork.upsert`: its row (not tracked) and how it meets a conflict. */
export type RecordedUpsert = {
  state: EntityState
  spec: UpsertSpec
  /** The row as a flush took it (see `PendingChanges.upserts`). */
  row?: Readonly<Record<string, unknown>>
}

/**
 * What one unit of work holds, in one object: the `UnitOfWork` class owns it, and the modules of its
 * other jobs (`pending.ts`, `apply-flushed.ts`, `checkpoint.ts`) take it, so the state has one owner
 * and each job one file.
 */
export interface UnitOfWorkState {
  /** The unit of work its entities point at (`EntityState.owner`). */
  readonly owner: object
  readonly map: IdentityMap
  /** New entities in creation order. */
  readonly created: CreatedList
  readonly removed: Set<EntityState>
  /** Managed entities assigned since the last flush. */
  readonly touched: Set<EntityState>
  /** Managed entities with values that change in place (json, arrays, bytea, timestamps): compared at every flush. */
  readonly watch: WatchList
  readonly upserts: RecordedUpsert[]
  /** Counts creations, assignments, removals and upserts (`UnitOfWork.edits`). */
  edits: number
  /**
   * Flushes under way: a flush writes rows and statuses past the entities (the ids it gives, what it
   * settles, the hooks' changes it takes back), which nothing else does (see `UnitOfWork.beginFlush`).
   */
  flushing: number
  /** Counts the flushes that ended, whatever their outcome. */
  flushed: number
  /**
   * Counts `clear()` calls: a flush in flight across one settles into a unit of work that forgot its
   * entities (see `applyFlushed`).
   */
  clears: number
  /**
   * While a flush's hooks run: what the application changes itself meanwhile, which taking back the
   * hooks' changes leaves as it is (see `checkpoint.ts`). Undefined at any other time.
   */
  outsideHooks: OutsideHooks | undefined
}

/** The state of an empty unit of work whose entities point at `owner`. */
export function unitOfWorkState(owner: object): UnitOfWorkState {
  return {
    owner,
    map: new IdentityMap(),
    created: new CreatedList(),
    removed: new Set(),
    touched: new Set(),
    watch: new WatchList(),
    upserts: [],
    edits: 0,
    flushing: 0,
    flushed: 0,
    clears: 0,
    outsideHooks: undefined,
  }
}

/** Marks a managed entity for deletion; a new one is simply forgotten. */
export function removeEntity(uow: UnitOfWorkState, state: EntityState): void {
  uow.edits++
  uow.outsideHooks?.changed(state)
  if (state.status === 'new') {
    uow.created.delete(state)
    state.status = 'detached'
  } else if (state.status === 'managed') {
    state.status = 'removed'
    uow.removed.add(state)
  }
}
