import { keyValues, type PendingChanges, versionOf } from '../track/changes.ts'
import type { InsertInput, PlanInput, StoredInput } from './draft.ts'

/**
 * A unit of work's pending changes as the planner takes them: its new entities as they are (their
 * states), then its upserts, its changed and its removed entities with their stored keys and versions.
 *
 * The planner takes plain input (`PlanInput`), so `planFlush` plans a change set without a unit of work.
 */
export function pendingInput(pending: PendingChanges, owner: object): PlanInput {
  const upserts: InsertInput[] = pending.upserts.map(({ state, spec }) => ({
    table: state.table,
    row: state.row,
    upsert: spec,
    owner,
    status: state.status,
    state,
  }))
  const updates: StoredInput[] = pending.updates.map(({ state, changed }) => ({
    table: state.table,
    key: keyValues(state),
    set: changed,
    row: state.row,
    expectedVersion: versionOf(state),
    state,
  }))
  const deletes: StoredInput[] = pending.deletes.map((state) => ({
    table: state.table,
    key: keyValues(state),
    set: NOTHING_SET,
    row: state.row,
    expectedVersion: versionOf(state),
    state,
  }))
  const inserts = upserts.length === 0 ? pending.inserts : [...pending.inserts, ...upserts]
  return { inserts, updates, deletes }
}

const NOTHING_SET: readonly string[] = []
