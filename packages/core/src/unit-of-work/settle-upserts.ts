import type { ColumnModel, TableModel } from '../model/model.ts'
import type { UpsertSpec } from '../plan/types.ts'
import { resolvedValues } from '../track/changes.ts'
import { type EntityState, stateOf } from '../track/entity-state.ts'
import { rowKey } from '../track/keys.ts'
import { normalizeKeyValue, sameValue } from '../values/index.ts'
import type { IdentityMap } from './identity-map.ts'

type Row = Record<string, unknown>

/**
 * A text naming an upserted entity's row by table and conflict values (references resolved), or
 * undefined when a value cannot be a key. A null stands for itself: it conflicts under a constraint
 * `NULLS NOT DISTINCT`, and otherwise the row is inserted and returned with it.
 *
 * Upserts of one row are told by their conflict values, the only key they have before the flush.
 */
export function conflictId(
  state: EntityState,
  conflict: readonly string[],
  row: Readonly<Row> = state.row,
): string | undefined {
  try {
    return conflictIdOf(state.table, conflict, resolvedValues(state, state.owner, conflict, row))
  } catch {
    return undefined
  }
}

/** The same for the conflict values of a row of `table` (plain values, as decoded). */
export function conflictIdOf(
  table: TableModel,
  conflict: readonly string[],
  values: Readonly<Record<string, unknown>>,
): string | undefined {
  try {
    const texts = conflict.map((name) => {
      const value = values[name]
      return value === null ? 'n' : `v${normalizeKeyValue(value, table.columnsByName.get(name)!)}`
    })
    // No canonical form holds a NUL character: the joined texts name one tuple.
    return `${table.key}\u0000${conflict.join('\u0001')}\u0000${texts.join('\u0000')}`
  } catch {
    return undefined
  }
}

/**
 * What the application did to the flushed upserts' entities while the flush was in flight: `sent`,
 * each one's row as the flush took it (what was sent); the entities assigned since are `touched`
 * (their values kept, to be written by the next flush), those removed since are `removed` (their
 * delete is the next flush's: their rows are in the database now).
 */
export interface InFlight {
  readonly sent: ReadonlyMap<EntityState, Readonly<Row>>
  touched(state: EntityState): void
  removed(state: EntityState): void
}

/**
 * Whether a value of `column` is other than `taken`, the copy the flush took of it: assigned since, or
 * changed in place (a json value, an array, a Date).
 */
function changedSince(now: unknown, taken: unknown, column: ColumnModel): boolean {
  if (now === taken) return false
  if (now === null || taken === null || typeof now !== 'object' || typeof taken !== 'object') return true
  if (stateOf(now) || stateOf(taken)) return true
  try {
    return !sameValue(now, taken, column)
  } catch {
    return true
  }
}

/**
 * After a commit, the entities of the flushed `upserts` (in the order upserted) hold their rows as
 * stored (`filled`, the flush's `ServerFilled`: every column, as the upsert returned them) and are managed. When an entity of that
 * key is already managed, it stays the one the unit of work tracks, as it was (its snapshot is not
 * refreshed: its pending changes would be lost), and the upserted entity is detached, holding the stored
 * values. An earlier upsert of the same conflict values, replaced by the later one (the last wins), is
 * detached too, with the values the later one got. An upserted entity removed before the flush is
 * detached; one removed or assigned while it was in flight: see {@link InFlight}.
 */
export function settleUpserts(
  upserts: readonly { readonly state: EntityState; readonly spec: UpsertSpec }[],
  filled: ReadonlyMap<EntityState, { readonly row: Row; readonly snapshot: Row }>,
  map: IdentityMap,
  watch: (state: EntityState) => void,
  inFlight?: InFlight,
): void {
  /** `state`'s row as the flush took it, where known (see {@link InFlight}). */
  const takenOf = (state: EntityState) => inFlight?.sent.get(state) ?? state.row
  // The stored rows by conflict values, for earlier upserts of a key (made when one is met).
  let stored: Map<string, Record<string, unknown>> | undefined
  const storedOf = (id: string) => {
    if (stored === undefined) {
      stored = new Map()
      for (const { state, spec } of upserts) {
        const values = filled.get(state)
        const key = values === undefined ? undefined : conflictId(state, spec.conflict, takenOf(state))
        if (key !== undefined) stored.set(key, values!.snapshot)
      }
    }
    return stored.get(id)
  }
  for (const { state, spec } of upserts) {
    const sentRow = inFlight?.sent.get(state)
    // Removed while the flush was in flight (sent, then forgotten as a new entity is).
    const removedMeanwhile =
      state.status === 'detached' && state.upserted !== undefined && sentRow !== undefined
    if ((state.status !== 'new' && !removedMeanwhile) || state.upserted === undefined) {
      state.upserted = undefined
      continue
    }
    const own = filled.get(state)
    const id = own === undefined ? conflictId(state, spec.conflict, takenOf(state)) : undefined
    const values = own?.row ?? (id === undefined ? undefined : storedOf(id))
    const { unkeyed } = state.upserted
    state.upserted = undefined
    state.status = 'detached'
    if (values === undefined) {
      // Nothing came back (serverValues off for its table): an id the flush gave it may not stand.
      for (const name of unkeyed) delete state.row[name]
      continue
    }
    // A value assigned while the flush was in flight stays, for the next flush to write.
    let assigned = false
    for (const column of state.table.columns) {
      const name = column.name
      // (The ids the flush itself gave are not the application's: `unkeyed`.)
      if (
        sentRow !== undefined &&
        !removedMeanwhile &&
        !unkeyed.includes(name) &&
        changedSince(state.row[name], sentRow[name], column)
      )
        assigned = true
      else state.row[name] = values[name]
    }
    if (own === undefined) continue
    state.snapshot = own.snapshot
    const key = rowKey(state.table, state.row)
    // An entity of the key that this flush removed (its delete ran first) gives way to the upserted one.
    const known = key === null ? undefined : map.get(state.table.key, key)
    if (key === null || (known !== undefined && known.status !== 'removed')) continue
    state.key = key
    state.status = 'managed'
    map.set(state)
    watch(state)
    if (removedMeanwhile) inFlight!.removed(state)
    else if (assigned) inFlight!.touched(state)
  }
}
