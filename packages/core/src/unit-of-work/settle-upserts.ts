import type { UpsertSpec } from '../plan/types.ts'
import type { TableModel } from '../schema/model.ts'
import { resolvedValues } from '../track/changes.ts'
import type { EntityState } from '../track/entity-state.ts'
import { rowKey } from '../track/keys.ts'
import { normalizeKeyValue } from '../values/index.ts'
import type { IdentityMap } from './identity-map.ts'

type Row = Record<string, unknown>

/**
 * A text naming an upserted entity's row by table and conflict values (references resolved), or
 * undefined when a value is null or cannot be a key.
 *
 * @example
 * conflictId(tagState, ['name']) // '["tag","name","fiction"]'
 */
export function conflictId(state: EntityState, conflict: readonly string[]): string | undefined {
  try {
    return conflictIdOf(state.table, conflict, resolvedValues(state, state.owner, conflict))
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
    const texts = conflict.map((name) => normalizeKeyValue(values[name], table.columnsByName.get(name)!))
    return JSON.stringify([table.key, ...conflict, ...texts])
  } catch {
    return undefined
  }
}

/**
 * After a commit, the entities of the flushed `upserts` (in the order upserted) hold their rows as
 * stored (`filled`, the flush's `ServerFilled`: every column, as the upsert returned them) and are managed. When an entity of that
 * key is already managed, it stays the one the unit of work tracks, as it was (its snapshot is not
 * refreshed: its pending changes would be lost), and the upserted entity is detached, holding the stored
 * values. An earlier upsert of the same conflict values, replaced by the later one (the last wins), is
 * detached too, with the values the later one got. An upserted entity removed before the commit is
 * detached.
 *
 * @example
 * settleUpserts(upserts.slice(0, flushed), filled, map, watch)
 */
export function settleUpserts(
  upserts: readonly { readonly state: EntityState; readonly spec: UpsertSpec }[],
  filled: ReadonlyMap<EntityState, { readonly row: Row; readonly snapshot: Row }>,
  map: IdentityMap,
  watch: (state: EntityState) => void,
): void {
  const stored = new Map<string, Record<string, unknown>>()
  for (const { state, spec } of upserts) {
    const values = filled.get(state)
    const id = values === undefined ? undefined : conflictId(state, spec.conflict)
    if (id !== undefined) stored.set(id, values!.snapshot)
  }
  for (const { state, spec } of upserts) {
    if (state.status !== 'new' || state.upserted === undefined) {
      state.upserted = undefined
      continue
    }
    const own = filled.get(state)
    const id = own === undefined ? conflictId(state, spec.conflict) : undefined
    const values = own?.row ?? (id === undefined ? undefined : stored.get(id))
    state.upserted = undefined
    state.status = 'detached'
    if (values === undefined) continue
    for (const column of state.table.columns) state.row[column.name] = values[column.name]
    if (own === undefined) continue
    state.snapshot = own.snapshot
    const key = rowKey(state.table, state.row)
    if (key === null || map.get(state.table.key, key) !== undefined) continue
    state.key = key
    state.status = 'managed'
    map.set(state)
    watch(state)
  }
}
