import type { ColumnModel } from '../model/model.ts'
import { sentReference } from '../plan/rows/sent-references.ts'
import { SentRows } from '../plan/sent-rows.ts'
import { changedColumns, type PendingChanges, referencedKey } from '../track/changes.ts'
import { type EntityState, stateOf } from '../track/entity-state.ts'
import { rowKey } from '../track/keys.ts'
import { isKept, type Kept, keptValue, wholeSnapshot } from '../track/sent-snapshot.ts'
import { hasMutableColumns } from '../track/snapshot.ts'
import { referencingValue, sameValue, storedKeyText } from '../values/index.ts'
import { settleUpserts } from './settle-upserts.ts'
import {
  noteDeleted,
  removeEntity,
  type SentValues,
  type ServerFilled,
  type UnitOfWorkState,
} from './state.ts'

/**
 * After a commit: new entities become managed, updated ones take what was sent as their snapshot
 * (an entity given as a foreign-key value is replaced by its id, unless reassigned meanwhile),
 * removed ones are forgotten, the `upsertCount` first upserts are dropped, their entities managed
 * (see `settleUpserts`). Changes made while the
 * flush was in flight stay pending. `editsAtPending`, the `edits` count when `pending` was taken:
 * when nothing was edited since, the flushed entities are known to equal what was sent and are not
 * compared again. `clearsAtPending`, the `clears` count then: when the unit of work was cleared
 * since, it forgot the flush's entities, which stay forgotten (detached, nothing pending for them:
 * a new entity detached by `clear()` is not one removed meanwhile, whose delete is pending).
 */
export function applyFlushed(
  uow: UnitOfWorkState,
  pending: PendingChanges,
  sent: SentValues,
  upsertCount: number,
  filled: ServerFilled = new Map(),
  editsAtPending?: number,
  clearsAtPending?: number,
): void {
  if (clearsAtPending !== undefined && clearsAtPending !== uow.clears) {
    // Forgotten while the flush was in flight: nothing of it is taken back (the entities of the
    // unit as it is now, loaded or made since, are left as they are). Its deletes are done all the same.
    noteDeleted(uow, pending.deletes)
    settleUnchanged(uow)
    return
  }
  const quiet = editsAtPending === uow.edits
  const sentOf = inOrder(sent)
  // Upserts first: the rows referencing them settle with the keys they got (see `settle`).
  if (upsertCount > 0) {
    const sentRows = new Map<EntityState, Readonly<Record<string, unknown>>>()
    for (const u of pending.upserts) if (u.row !== undefined) sentRows.set(u.state, u.row)
    const inFlight = {
      sent: sentRows,
      touched: (s: EntityState) => uow.touched.add(s),
      removed: (s: EntityState) => removeEntity(uow, s),
    }
    const watch = (s: EntityState) => {
      if (hasMutableColumns(s.table)) uow.watch.add(s)
    }
    settleUpserts(uow.upserts.slice(0, upsertCount), filled, uow.map, watch, inFlight)
  }
  // Nothing created or removed since `pending` was taken: the new entities are exactly its inserts
  // (let go of before the identity map and the watch list take them).
  if (quiet) uow.created.clear()
  // Indexed loops: a flush's loops over its rows run once, mostly unoptimized, where `for...of` cost
  // an iterator result per row (a flush of 100,000 rows settled with megabytes of them).
  const inserts = pending.inserts
  // Whether every new entity is mapped, and watched: then they are added in one copy each.
  let allKeyed = true
  let allWatched = true
  for (let i = 0; i < inserts.length; i++) {
    const s = inserts[i]!
    // A new entity removed while the flush was in flight is in the database now: its delete is pending.
    const removedMeanwhile = s.status === 'detached'
    settle(s, sentOf(s), filled)
    s.key = rowKey(s.table, s.row)
    if (!quiet) uow.created.delete(s)
    if (s.key === null) {
      // Its key was left to the server and did not come back (a trigger dropped the row): it
      // cannot be told apart from other rows, so it is no longer tracked.
      s.status = 'detached'
      allKeyed = false
      continue
    }
    s.status = 'managed'
    s.insertedHere = true
    if (!quiet) uow.touched.add(s) // assigned while in flight, maybe: compared below
    if (!hasMutableColumns(s.table)) allWatched = false
    if (removedMeanwhile) removeEntity(uow, s)
  }
  if (allKeyed) uow.map.setAll(inserts)
  if (allKeyed && allWatched) uow.watch.addAll(inserts)
  if (!allKeyed || !allWatched) {
    for (let i = 0; i < inserts.length; i++) {
      const s = inserts[i]!
      if (s.key === null) continue
      if (!allKeyed) uow.map.set(s)
      if (!allWatched && hasMutableColumns(s.table)) uow.watch.add(s)
    }
  }
  const updates = pending.updates
  for (let i = 0; i < updates.length; i++) {
    const state = updates[i]!.state
    settle(state, sentOf(state), filled)
    if (quiet) uow.touched.delete(state)
  }
  const deletes = pending.deletes
  noteDeleted(uow, deletes)
  for (let i = 0; i < deletes.length; i++) {
    const s = deletes[i]!
    // Dropped from the watch list when it is next read (see `WatchList`).
    s.status = 'detached'
    uow.removed.delete(s)
    uow.map.delete(s)
  }
  settleUnchanged(uow)
  uow.upserts.splice(0, upsertCount)
}

/**
 * After a flush (one that wrote nothing too): assigned entities left with nothing to write are no
 * longer touched, and an entity each holds as a foreign-key value standing for the key its row holds
 * already (`em.assign(book, { author_id: ada })` where the row points to Ada) is replaced by that key,
 * as the flush replaces the ones it writes. It stayed the entity, though no later read tells it apart.
 */
export function settleUnchanged(uow: UnitOfWorkState): void {
  for (const s of uow.touched) {
    if (s.status === 'managed' && hasChanges(s, uow.owner)) continue
    uow.touched.delete(s)
    if (s.status === 'managed') resolveUnchanged(s)
  }
}

/** {@link settleUnchanged} of one entity: its references equal to its snapshot's values become them. */
function resolveUnchanged(s: EntityState): void {
  const held = s.heldSnapshot
  if (held === null) return
  const columns = s.table.columns
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i]!
    const now = s.row[c.name]
    if (typeof now !== 'object' || now === null || !stateOf(now)) continue
    const was = isKept(held) ? keptValue(held, s, c) : held[c.name]
    if (was !== undefined && sameValue(resolvedOrSelf(now, c, s), was, c)) s.row[c.name] = was
  }
}

/**
 * The sent values become the snapshot; references the flush resolved become the ids they stood for;
 * values the server filled go to the snapshot, and to the row unless assigned while the flush was in
 * flight (a generated column always). A snapshot kept as sent stays so (see {@link settleKept}).
 */
function settle(
  s: EntityState,
  sent: Record<string, unknown> | number | undefined,
  filled: ServerFilled,
): void {
  if (sent === undefined) return
  const server = filled.get(s)
  const asSent = sent
  if (isKept(sent)) {
    // Held by the entity since its values were checked: kept as sent, or made whole by an assignment meanwhile.
    const held = s.heldSnapshot
    if (held === sent && server === undefined) {
      settleKept(s, sent)
      return
    }
    sent = held !== null && !isKept(held) ? held : wholeSnapshot(sent, s)
  }
  const snapshot = sent
  if (server !== undefined) {
    for (const name of Object.keys(server.snapshot)) {
      snapshot[name] = server.snapshot[name]
      const now = s.row[name]
      // A key column the server filled may have been given as null (left to the server too).
      const unset = now === undefined || (now === null && s.table.primaryKey.includes(name))
      if (unset || s.table.columnsByName.get(name)?.generated) s.row[name] = server.row[name]
    }
  }
  const columns = s.table.columns
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i]!
    const now = s.row[c.name]
    if (typeof now !== 'object' || now === null) continue // only an entity is replaced
    // A reference to an upserted row was sent as a lookup: its key is known now. The key of the
    // entity sent, not of one assigned while the flush was in flight (a change still to write).
    const target =
      snapshot[c.name] === undefined && typeof asSent === 'object' ? sentReference(asSent, c.name) : undefined
    const id =
      target !== undefined
        ? resolvedKey(target, c, s)
        : snapshot[c.name] === undefined && stateOf(now)
          ? resolvedOrSelf(now, c, s)
          : undefined
    if (id !== undefined && !stateOf(id)) snapshot[c.name] = id
    if (stateOf(now) && sameValue(resolvedOrSelf(now, c, s), snapshot[c.name], c))
      s.row[c.name] = snapshot[c.name]
  }
  const version = s.table.versionColumn
  if (version) s.row[version] = snapshot[version]
  s.snapshot = snapshot
}

/**
 * {@link settle} of an entity whose snapshot is kept as sent (see `SentSnapshot`), which it holds
 * already: references the flush resolved become the ids they stood for (kept by the snapshot), unless
 * reassigned meanwhile (which made the snapshot whole). Its other values are the ones sent.
 */
function settleKept(s: EntityState, sent: Kept): void {
  const columns = s.table.columns
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i]!
    const now = s.row[c.name]
    if (typeof now !== 'object' || now === null || !stateOf(now)) continue
    const kept = keptValue(sent, s, c)
    if (kept !== undefined && sameValue(resolvedOrSelf(now, c, s), kept, c)) s.row[c.name] = kept
  }
}

/**
 * The key a reference stands for, whatever its entity's state now (it may have been removed while
 * the flush was in flight), or the reference itself when it cannot stand for the column.
 */
function resolvedOrSelf(value: unknown, column: ColumnModel, s: EntityState): unknown {
  const ref = stateOf(value)
  return ref ? (resolvedKey(ref, column, s) ?? value) : value
}

/** The key the entity of `ref` stands for in `column` of `s`, undefined when it cannot. */
function resolvedKey(ref: EntityState, column: ColumnModel, s: EntityState): unknown {
  try {
    const { value: key, column: keyColumn } = referencedKey(ref, column, s.table)
    const target = ref.table.columnsByName.get(keyColumn)!
    // As `resolveReference` wrote it: a string key as the target column stores it.
    const resolved = stateOf(key) ? resolvedOrSelf(key, target, ref) : storedKeyText(key, target)
    return referencingValue(resolved, column)
  } catch {
    return undefined
  }
}

/** Whether `s` has changes to write (when they cannot be computed now, the next flush reports why). */
function hasChanges(s: EntityState, owner: object): boolean {
  try {
    return changedColumns(s, owner).length > 0
  } catch {
    return true
  }
}

/**
 * A lookup of `sent` for entities asked in the order it holds them (as the flush took them): each
 * answer is the next entry, without hashing (a flush of 100,000 rows spent most of its settling in
 * lookups); the first entity out of that order turns it into plain lookups. A {@link SentRows} walks
 * its arrays without an object per entry.
 */
function inOrder(sent: SentValues): (state: EntityState) => Record<string, unknown> | number | undefined {
  if (sent instanceof SentRows) return sent.inOrder()
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
