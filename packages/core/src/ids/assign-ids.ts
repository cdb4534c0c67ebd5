import type { TableModel } from '../schema/model.ts'
import type { EntityState } from '../track/entity-state.ts'
import type { IdAllocator } from './id-allocator.ts'

/**
 * The sequence that must give `state` its key: a new row whose single-column primary key has a
 * sequence (serial or identity) and no value yet. Null otherwise (uuid keys, keys given, composite keys).
 */
export function sequenceToFill(state: EntityState): string | null {
  const key = sequenceKey(state.table)
  if (key === null) return null
  return unfilled(state, key) ? key.sequence : null
}

/** Whether `state`'s row holds no value for its sequence key (undefined or null). */
function unfilled(state: EntityState, key: SequenceKey): boolean {
  const v = state.row[key.name]
  return v === undefined || v === null
}

/** A table's single key column and the sequence that fills it. */
interface SequenceKey {
  readonly name: string
  readonly sequence: string
}

/** The single key column of `table` and its sequence, if a sequence fills it; else null. */
function sequenceKey(table: TableModel): SequenceKey | null {
  let key = SEQUENCE_KEYS.get(table)
  if (key === undefined) {
    const column = table.primaryKey.length === 1 ? table.columnsByName.get(table.primaryKey[0]!) : undefined
    key = column?.sequence ? { name: column.name, sequence: column.sequence } : null
    SEQUENCE_KEYS.set(table, key)
  }
  return key
}

/** {@link sequenceKey} per table model, found once. */
const SEQUENCE_KEYS = new WeakMap<TableModel, SequenceKey | null>()

/** Ids to take per sequence for `states`. */
export function idNeed(states: readonly EntityState[]): Map<string, number> {
  const need = new Map<string, number>()
  // Rows of one table come in runs: the table's key is looked up once per run.
  let table: TableModel | undefined
  let key: SequenceKey | null = null
  for (const s of states) {
    if (s.table !== table) {
      table = s.table
      key = sequenceKey(table)
    }
    if (key !== null && unfilled(s, key)) need.set(key.sequence, (need.get(key.sequence) ?? 0) + 1)
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
  // Rows of one table come in runs: the table's key, its sequence's ids and how the key holds an
  // id are looked up once per run.
  let table: TableModel | undefined
  let key: SequenceKey | null = null
  let asText = true
  let list: readonly string[] | undefined
  let i = 0
  for (const s of states) {
    if (s.table !== table) {
      if (key !== null) used.set(key.sequence, i)
      table = s.table
      key = sequenceKey(table)
      if (key === null) continue
      asText = holdsText(table, key.name)
      list = taken.get(key.sequence)
      i = used.get(key.sequence) ?? 0
    }
    if (key === null || !unfilled(s, key)) continue
    const id = list?.[i++]
    s.row[key.name] = id === undefined ? null : asText ? id : Number(id)
  }
}

/**
 * Placeholder ids (-1, -2...) for the rows without ids, typed as their real ids will be, for planning
 * before the real ids are fetched (see `toChangeSet`). The rows are left as they are: writing the
 * placeholders into them and deleting them afterwards would turn every row into a slow dictionary-mode
 * object for the rest of its life.
 *
 * @example
 * planFlush(schema, toChangeSet(pending, uow, provisionalIds(newRows)))
 */
export function provisionalIds(states: readonly EntityState[]): ProvisionalIds {
  const out = new Map<EntityState, unknown>()
  let next = -1
  for (const s of states) if (sequenceToFill(s)) out.set(s, keyValue(s, String(next--)))
  return out
}

/** The placeholder id of each new row without an id (its single key column's value). */
export type ProvisionalIds = ReadonlyMap<EntityState, unknown>

/** An id (decimal text) as the key column holds it: a string for int8/numeric keys, else a number. */
function keyValue(state: EntityState, id: string): unknown {
  return holdsText(state.table, state.table.primaryKey[0]!) ? id : Number(id)
}

/** Whether `column` of `table` holds ids as decimal text (int8, numeric) rather than numbers. */
function holdsText(table: TableModel, column: string): boolean {
  const type = table.columnsByName.get(column)?.type
  return type === 'int8' || type === 'numeric'
}
