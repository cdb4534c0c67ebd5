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
  /** Counts the commits that deleted rows (see `applyFlushed`): a read takes the count as it starts. */
  deleting: number
  /** Reads that track rows, started and not over (see `UnitOfWork.readStarts`). */
  reading: number
  /**
   * The rows a commit deleted while some read was under way, by table then key: the commit's count
   * (see {@link deleting}). A read started before that commit may answer after it with the row as it
   * was: it is left out (see `UnitOfWork.add`). Emptied once no read is under way.
   */
  readonly deletedWhileReading: Map<string, Map<string, number>>
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
    deleting: 0,
    reading: 0,
    deletedWhileReading: new Map(),
    clears: 0,
    outsideHooks: undefined,
  }
}

/**
 * After a commit that deleted the rows of `deleted`: while reads are under way, each row is noted with
 * the commit's count, so that such a read answered with it afterwards leaves it out (see
 * `deletedSince`).
 */
export function noteDeleted(uow: UnitOfWorkState, deleted: readonly EntityState[]): void {
  if (deleted.length === 0) return
  const commit = ++uow.deleting
  if (uow.reading === 0) return
  for (let i = 0; i < deleted.length; i++) {
    const s = deleted[i]!
    if (s.key === null) continue
    let keys = uow.deletedWhileReading.get(s.table.key)
    if (keys === undefined) {
      keys = new Map()
      uow.deletedWhileReading.set(s.table.key, keys)
    }
    keys.set(s.key, commit)
  }
}

/** Whether a commit after the read that started at `since` (see `noteDeleted`) deleted the row `key` of `table`. */
export function deletedSince(uow: UnitOfWorkState, table: string, key: string, since: number): boolean {
  const commit = uow.deletedWhileReading.get(table)?.get(key)
  return commit !== undefined && commit > since
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
