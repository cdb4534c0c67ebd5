import type { ColumnModel, TableModel } from '../model/model.ts'
import { keyFills } from '../schema/key-fill.ts'
import { perTable } from '../schema/per-table.ts'
import type { EntityState } from '../track/entity-state.ts'
import { applicationValue } from '../values/mapping.ts'
import type { IdAllocator } from './id-allocator.ts'

/** Whether `state`'s row holds no value for its sequence key column (undefined or null). */
function unfilled(state: EntityState, key: SequenceKey): boolean {
  const v = state.row[key.name]
  return v === undefined || v === null
}

/** A key column and the sequence that fills it. */
interface SequenceKey {
  readonly name: string
  readonly sequence: string
  /** Whether the column holds ids as decimal text (int8, numeric) rather than numbers. */
  readonly asText: boolean
  /** The column's own value of an id, when it has a `mapping` (see `ColumnModel.mapping`). */
  readonly read: ((id: string | number) => unknown) | undefined
}

/** The key columns of `table` that a sequence fills, with their sequences: most often one, or none. */
const sequenceKeys: (table: TableModel) => readonly SequenceKey[] = perTable((table) =>
  keyFills(table).sequence.map((column) => ({
    name: column.name,
    sequence: column.sequence!,
    asText: holdsText(column),
    read: column.mapping === undefined ? undefined : (id: string | number) => applicationValue(id, column),
  })),
)

/** Ids to take per sequence for `states`. */
export function idNeed(states: readonly EntityState[]): Map<string, number> {
  const need = new Map<string, number>()
  // Rows of one table come in runs: the table's keys are looked up once per run.
  let table: TableModel | undefined
  let keys: readonly SequenceKey[] = []
  // Indexed loops: a flush's loop over its rows runs once, mostly unoptimized, where `for...of` cost
  // an iterator result per row.
  for (let i = 0; i < states.length; i++) {
    const s = states[i]!
    if (s.table !== table) {
      table = s.table
      keys = sequenceKeys(table)
    }
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!
      const v = s.row[key.name]
      if (v === undefined || v === null) need.set(key.sequence, (need.get(key.sequence) ?? 0) + 1)
    }
  }
  return need
}

/** The tables of `states` whose rows lack a key `sequence` fills, each once, in order. */
export function tablesDrawingFrom(states: readonly EntityState[], sequence: string): string[] {
  const out = new Set<string>()
  for (const s of states) {
    if (out.has(s.table.key)) continue
    if (sequenceKeys(s.table).some((key) => key.sequence === sequence && unfilled(s, key)))
      out.add(s.table.key)
  }
  return [...out]
}

/**
 * Takes `need` ids from `ids` and writes them into the rows of `states`, in order (for a table with
 * several sequence key columns, column by column within each row).
 */
export function assignIds(
  states: readonly EntityState[],
  need: ReadonlyMap<string, number>,
  ids: IdAllocator,
): void {
  if (need.size === 0) return
  const draw = ids.draw(need)
  // Rows of one table come in runs: the table's keys are looked up once per run.
  let table: TableModel | undefined
  let keys: readonly SequenceKey[] = []
  for (let i = 0; i < states.length; i++) {
    const s = states[i]!
    if (s.table !== table) {
      table = s.table
      keys = sequenceKeys(table)
    }
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!
      const v = s.row[key.name]
      if (v !== undefined && v !== null) continue // filled (see `unfilled`)
      const id = draw.next(key.sequence, key.asText)
      s.row[key.name] = id === undefined ? null : key.read === undefined ? id : key.read(id)
    }
  }
  draw.finish()
}

/**
 * Placeholder ids (-1, -2...) for the rows without ids, typed as their real ids will be, so that
 * `em.plan()` can show a plan without drawing ids from the pool. The rows are left as they are:
 * writing the placeholders into them and deleting them afterwards would turn every row into a slow
 * dictionary-mode object for the rest of its life.
 */
export function provisionalIds(states: readonly EntityState[]): ProvisionalIds {
  const out = new Map<EntityState, unknown>()
  let next = -1
  for (const s of states) {
    for (const key of sequenceKeys(s.table)) {
      if (!unfilled(s, key)) continue
      const text = String(next--)
      out.set(s, key.asText ? text : Number(text))
      break
    }
  }
  return out
}

/**
 * The placeholder id of each new row without an id: the value of its (first) unfilled sequence key
 * column; every unfilled sequence key column of the row takes it (see {@link placeholderIn}).
 */
export type ProvisionalIds = ReadonlyMap<EntityState, unknown>

/**
 * The placeholder `state` holds in `column` in a plan shown before its ids are drawn: its
 * placeholder, typed for the column, when `column` is a sequence key column it has no value in; else
 * undefined (with several sequence key columns, a column is asked whether it holds a value).
 */
export function placeholderIn(provisional: ProvisionalIds, state: EntityState, column: string): unknown {
  const placeholder = provisional.get(state)
  if (placeholder === undefined) return undefined
  const keys = sequenceKeys(state.table)
  for (const key of keys) {
    if (key.name !== column) continue
    if (keys.length > 1 && !unfilled(state, key)) return undefined
    return key.asText ? String(placeholder) : Number(placeholder)
  }
  return undefined
}

/** Whether `column` holds ids as decimal text (int8, numeric) rather than numbers. */
function holdsText(column: ColumnModel): boolean {
  return column.type === 'int8' || column.type === 'numeric'
}
