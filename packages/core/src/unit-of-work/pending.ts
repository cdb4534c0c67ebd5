import { errors } from '../errors.ts'
import { changedColumns, type PendingChanges, resolvedValues } from '../track/changes.ts'
import type { EntityState } from '../track/entity-state.ts'
import { encodeValue } from '../values/index.ts'
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
    const values = resolvedValues(u.state, uow.owner, u.spec.conflict)
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
