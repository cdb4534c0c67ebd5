import type { EntityState } from '../track/entity-state.ts'
import type { IdAllocator } from './id-allocator.ts'

/**
 * The sequence that must give `state` its key: a new row whose single-column primary key has a
 * sequence (serial or identity) and no value yet. Null otherwise (uuid keys, keys given, composite keys).
 */
export function sequenceToFill(state: EntityState): string | null {
  const { table } = state
  if (table.primaryKey.length !== 1) return null
  const pk = table.primaryKey[0]!
  const v = state.row[pk]
  if (v !== undefined && v !== null) return null
  return table.columnsByName.get(pk)?.sequence ?? null
}

/** Ids to take per sequence for `states`. */
export function idNeed(states: readonly EntityState[]): Map<string, number> {
  const need = new Map<string, number>()
  for (const s of states) {
    const seq = sequenceToFill(s)
    if (seq) need.set(seq, (need.get(seq) ?? 0) + 1)
  }
  return need
}

/** Takes `need` ids from `ids` and writes them into the rows of `states`, in order. */
export function assignIds(
  states: readonly EntityState[],
  need: ReadonlyMap<string, number>,
  ids: IdAllocator,
): void {
  if (need.size === 0) return
  const taken = ids.take(need)
  const used = new Map<string, number>() // an index per sequence: shift() would be quadratic
  for (const s of states) {
    const seq = sequenceToFill(s)
    if (!seq) continue
    const i = used.get(seq) ?? 0
    used.set(seq, i + 1)
    setKey(s, taken.get(seq)?.[i] ?? null)
  }
}

/** Gives rows without ids placeholder ids (-1, -2...) and returns how to undo it. */
export function provisionalIds(states: readonly EntityState[]): () => void {
  const assigned: { state: EntityState; had: boolean; value: unknown }[] = []
  let next = -1
  for (const s of states) {
    if (!sequenceToFill(s)) continue
    const pk = s.table.primaryKey[0]!
    assigned.push({ state: s, had: Object.hasOwn(s.row, pk), value: s.row[pk] })
    setKey(s, String(next--))
  }
  return () => {
    for (const { state, had, value } of assigned) {
      const pk = state.table.primaryKey[0]!
      if (had) state.row[pk] = value
      else delete state.row[pk]
    }
  }
}

/** Writes an id (decimal text) into the key column: a string for int8/numeric keys, else a number. */
function setKey(state: EntityState, id: string | null): void {
  const pk = state.table.primaryKey[0]!
  const column = state.table.columnsByName.get(pk)!
  state.row[pk] = id === null ? null : column.type === 'int8' || column.type === 'numeric' ? id : Number(id)
}
