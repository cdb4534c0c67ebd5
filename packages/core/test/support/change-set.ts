// What the tests plan and compare with, made the plain way from a unit of work's pending changes:
// its change set (the input of `planFlush`, the planner's entry point for tools) and the rows a flush
// sends. Test support only: a flush drafts from the pending changes directly (`plan/draft-flush.ts`).
import type { ChangeSet, DeleteChange, InsertChange, UpdateChange } from '../../src/plan/types.ts'
import { keyValues, type PendingChanges, resolvedValues, versionOf } from '../../src/track/changes.ts'
import type { EntityState } from '../../src/track/entity-state.ts'
import { snapshotOf } from '../../src/track/snapshot.ts'
import type { SentValues } from '../../src/unit-of-work/state.ts'
import type { UnitOfWork } from '../../src/unit-of-work/unit-of-work.ts'

/** The plain-data change set of `pending`, every reference resolved (ids must be assigned). */
export function toChangeSet(pending: PendingChanges, owner: object): ChangeSet {
  const inserts: InsertChange[] = [
    ...pending.inserts.map((s) => ({
      table: s.table.key,
      values: resolvedValues(s, owner),
    })),
    ...pending.upserts.map(({ state, spec }) => ({
      table: state.table.key,
      values: resolvedValues(state, owner),
      upsert: spec,
    })),
  ]
  const updates: UpdateChange[] = pending.updates.map(({ state, changed }) => ({
    table: state.table.key,
    key: keyValues(state),
    set: resolvedValues(state, owner, changed),
    expectedVersion: versionOf(state),
  }))
  const deletes: DeleteChange[] = pending.deletes.map((s) => ({
    table: s.table.key,
    key: keyValues(s),
    expectedVersion: versionOf(s),
  }))
  return { inserts, updates, deletes }
}

/**
 * The row of every inserted or updated entity as a flush sends it, references resolved: what the tests
 * compare the planner's `sent` with. `changes`, the change set made of `pending` ({@link toChangeSet}),
 * spares resolving the references again.
 */
export function sentValues(uow: UnitOfWork, pending: PendingChanges, changes?: ChangeSet): SentValues {
  const out = new Map<EntityState, Record<string, unknown>>()
  pending.inserts.forEach((s, i) => {
    // The resolved values hold every column the row holds: the snapshot of either is the same.
    out.set(s, snapshotOf(s.table, changes?.inserts[i]?.values ?? { ...s.row, ...resolvedValues(s, uow) }))
  })
  for (const [i, { state, changed }] of pending.updates.entries()) {
    const set = changes?.updates[i]?.set ?? resolvedValues(state, uow, changed)
    const values = { ...state.snapshot, ...set }
    const version = state.table.versionColumn
    if (version) values[version] = Number(state.snapshot?.[version]) + 1
    out.set(state, snapshotOf(state.table, values))
  }
  return out
}
