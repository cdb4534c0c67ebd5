import { errors } from '../errors.ts'
import type { ColumnModel, ForeignKeyModel, TableModel } from '../model/model.ts'
import { keyFillOf, keyFills } from '../schema/key-fill.ts'
import { perTable } from '../schema/per-table.ts'
import { tableOfKey } from '../schema/table-of-key.ts'
import { referencingValue, sameValue, storedKeyText } from '../values/index.ts'
import { type EntityState, stateOf } from './entity-state.ts'
import { emptyRow } from './row.ts'
import { heldValue, isKept, isKeptTime, type Kept, keptColumns } from './sent-snapshot.ts'
import type { UpsertSpec } from './upsert-spec.ts'

/** What a flush will write, entity by entity. */
export interface PendingChanges {
  readonly inserts: readonly EntityState[]
  readonly updates: readonly { readonly state: EntityState; readonly changed: readonly string[] }[]
  readonly deletes: readonly EntityState[]
  /**
   * Rows to insert or update on conflict; not tracked after the flush. `row`: a copy of the entity's
   * row as taken, to tell what was assigned while the flush was in flight.
   */
  readonly upserts: readonly {
    readonly state: EntityState
    readonly spec: UpsertSpec
    readonly row?: Readonly<Record<string, unknown>>
  }[]
}

/**
 * Columns of `state` whose value differs from its snapshot (FK entities compared by their key).
 * `inPlace`: the entity was not assigned to since its snapshot was taken, so only values that can
 * change in place (objects: Dates, arrays, JSON, Buffers, referenced entities whose key may have been
 * assigned since) are compared; a primitive value is the one the snapshot was taken from.
 */
export function changedColumns(state: EntityState, owner: object, inPlace = false): string[] {
  const out: string[] = []
  const snapshot = state.heldSnapshot
  if (!snapshot) return out
  if (isKept(snapshot)) return changedSinceSent(state, snapshot, owner)
  const row = state.row
  for (const column of state.table.columns) {
    if (column.generated || column.name === state.table.versionColumn) continue
    const value = row[column.name]
    if (inPlace && (typeof value !== 'object' || value === null)) continue
    // A column a new row left to its DEFAULT is absent (its value is the server's): not a change.
    if (value === undefined && !Object.hasOwn(row, column.name)) continue
    // Only an object may be an entity to resolve: the usual value goes straight to the comparison.
    const now =
      typeof value === 'object' && value !== null
        ? resolveReference(value, column, state.table, owner)
        : value
    if (!sameValue(now, snapshot[column.name], column)) out.push(column.name)
  }
  return out
}

/**
 * The columns of `state` whose value differs from what a flush sent, its snapshot kept as sent
 * (see `SentSnapshot`): only the values it keeps are compared (the row's other values are the ones
 * sent: an assignment would have made the snapshot whole). A kept Date's time is compared as a
 * number first, without a Date.
 *
 * A flush after a large insert compares its entities without making their snapshots whole.
 */
function changedSinceSent(state: EntityState, sent: Kept, owner: object): string[] {
  const out: string[] = []
  const { table, row } = state
  const columns = keptColumns(table)
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i]!
    if (column.generated || column.name === table.versionColumn) continue
    const kept = heldValue(sent, table, i)
    if (kept === undefined) continue
    const value = row[column.name]
    if (isKeptTime(kept, column) && value instanceof Date && Object.is(value.getTime(), kept)) continue
    const was = isKeptTime(kept, column) ? new Date(kept) : kept
    const now =
      typeof value === 'object' && value !== null ? resolveReference(value, column, table, owner) : value
    if (!sameValue(now, was, column)) out.push(column.name)
  }
  return out
}

/**
 * What stands for the key `column` of `ref` while it has no value yet (a new row's id not assigned),
 * or undefined when nothing does.
 */
export type Unassigned = (ref: EntityState, column: string) => unknown

/**
 * The value to write for `value` in `column`: an entity given as a foreign-key value becomes the
 * value of the referenced column (its primary key) of that entity. A new entity's key not assigned
 * yet is what `unassigned` gives for it (the planner's slot); without it, ids must be assigned before.
 * With `read` (a read's condition), a removed or detached entity stands for its key too: only a
 * write may not refer to it.
 */
export function resolveReference(
  value: unknown,
  column: ColumnModel,
  table: TableModel,
  owner: object,
  unassigned?: Unassigned,
  read = false,
): unknown {
  const ref = stateOf(value)
  if (!ref) return value
  if (ref.owner !== owner) {
    throw errors.entityOfAnotherManager(table.key, column.name, ref.table.key)
  }
  if (!read && (ref.status === 'removed' || ref.status === 'detached')) {
    throw errors.refersToEntityIn(table.key, column.name, ref.table.key, ref.status)
  }
  const key = referencedKey(ref, column, table)
  const standIn = unassigned?.(ref, key.column)
  if (standIn !== undefined) return standIn
  const targetColumn = ref.table.columnsByName.get(key.column)
  if (ref.status === 'new' && (key.value === undefined || key.value === null) && targetColumn) {
    unknownKey(table, column, ref.table, targetColumn, key.value)
  }
  // A key that is itself a reference (a one-to-one row keyed by its parent) resolves in turn.
  // A string key as the target column stores it (its spaces past varchar(n), a uuid's canonical form),
  // not as the entity was given it: a wider referencing column would write the given form.
  const resolved =
    targetColumn && stateOf(key.value)
      ? resolveReference(key.value, targetColumn, ref.table, owner, unassigned, read)
      : targetColumn
        ? storedKeyText(key.value, targetColumn)
        : key.value
  return referencingValue(resolved, column)
}

/**
 * A new row's key column that has no value yet and that nothing stands for: the server fills
 * it (`server`) or nobody can (`denied`): either is an error before anything is sent. So is a unique
 * column a foreign key references that is left out for the server to fill. Anything else (a column
 * the application has yet to give) is left to the encoding, which names it.
 */
function unknownKey(
  table: TableModel,
  column: ColumnModel,
  target: TableModel,
  targetColumn: ColumnModel,
  value: null | undefined,
) {
  if (!target.primaryKey.includes(targetColumn.name)) {
    // A unique column the foreign key references, left to the server (a DEFAULT, an identity, a
    // generated column): known only once the flush inserting the row answers, as a key would be.
    if (value === undefined && targetColumn.hasDefault)
      throw errors.serverKeyReferenced(table.key, column.name, target.key, targetColumn.name)
    return
  }
  const fill = keyFillOf(target, targetColumn)
  if (fill === 'server')
    throw errors.serverKeyReferenced(table.key, column.name, target.key, targetColumn.name)
  if (fill === 'denied') throw errors.sequenceDenied(target.key, targetColumn.name, targetColumn.sequence!)
}

/**
 * The column of `ref`'s table a reference in `table.column` stands for (what the column's foreign key
 * to that table references at the column's place, a composite key's included, or through the key it
 * references: see {@link referencedColumn}; for a column with no foreign key, the single primary key
 * column), and its value, whatever `ref`'s state. `INVALID_VALUE` when `ref` cannot stand for the
 * column: the column's foreign keys lead to other tables, or it has none and `ref`'s key is composite.
 */
export function referencedKey(
  ref: EntityState,
  column: ColumnModel,
  table: TableModel,
): { readonly column: string; readonly value: unknown } {
  if (ref.table.kind !== 'table')
    throw errors.viewRowAsKey(table.key, column.name, ref.table.key, ref.table.kind)
  const keys = foreignKeysOn(table, column.name)
  if (keys.length === 0) {
    // No foreign key: the entity's single primary key column.
    const key = ref.table.primaryKey.length === 1 ? ref.table.primaryKey[0] : undefined
    if (key === undefined) throw errors.entityForCompositeColumn(table.key, column.name, ref.table.key)
    return { column: key, value: ref.row[key] }
  }
  const target = referencedColumnOf(table, column.name, ref.table)
  if (target === undefined) {
    const targets = [...new Set(keys.map((f) => f.target))].join(', ')
    throw errors.wrongReferenceTarget(table.key, column.name, targets, ref.table.key)
  }
  return { column: target, value: ref.row[target] }
}

/**
 * The column of `target` that `table.column` references: through a foreign key to `target` (a
 * single-column one first; a composite one's column at this column's place), else through the column
 * a foreign key references when that one references `target` in turn (`edition_note.book_id`, of a
 * key to `edition (book_id, number)`, whose `book_id` references `book`: a book stands for its id).
 * Undefined when none does.
 */
function referencedColumn(
  table: TableModel,
  column: string,
  target: TableModel,
  depth: number,
): string | undefined {
  const keys = foreignKeysOn(table, column)
  const fk =
    keys.find((f) => f.columns.length === 1 && f.target === target.key) ??
    keys.find((f) => f.target === target.key)
  if (fk !== undefined) return fk.targetColumns[fk.columns.indexOf(column)]
  if (depth >= MAX_REFERENCE_DEPTH) return undefined
  for (const f of keys) {
    const next = tableOfKey(table, f.target)
    const through = f.targetColumns[f.columns.indexOf(column)]
    if (next === undefined || through === undefined || next === table) continue
    const found = referencedColumn(next, through, target, depth + 1)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * {@link referencedColumn} found once per table, column and target (a model does not change): a flush
 * asks it of every reference it writes.
 */
function referencedColumnOf(table: TableModel, column: string, target: TableModel): string | undefined {
  const byColumn = referencedColumns(table)
  let byTarget = byColumn.get(column)
  if (byTarget === undefined) {
    byTarget = new Map()
    byColumn.set(column, byTarget)
  }
  let found = byTarget.get(target)
  if (found === undefined) {
    found = referencedColumn(table, column, target, 0) ?? null
    byTarget.set(target, found)
  }
  return found ?? undefined
}

/** Per table, per column, per target table: the column {@link referencedColumn} found (null: none). */
const referencedColumns = perTable(() => new Map<string, Map<TableModel, string | null>>())

/** How many foreign keys {@link referencedColumn} follows from a column to the entity's table. */
const MAX_REFERENCE_DEPTH = 3

/**
 * The foreign keys of `table` with `column` among their columns, single and composite: found once per
 * table and column (a model does not change).
 */
function foreignKeysOn(table: TableModel, column: string): readonly ForeignKeyModel[] {
  const byColumn = keysByColumn(table)
  let keys = byColumn.get(column)
  if (keys === undefined) {
    keys = table.foreignKeys.filter((f) => f.columns.includes(column))
    byColumn.set(column, keys)
  }
  return keys
}

const keysByColumn = perTable(() => new Map<string, readonly ForeignKeyModel[]>())

const NO_COLUMNS: readonly ColumnModel[] = []

/**
 * The row values of `state` with references resolved, only the columns given (or all set ones); the
 * key columns of a new row that the server fills, left null, are left out. Ids must be assigned.
 */
export function resolvedValues(
  state: EntityState,
  owner: object,
  columns?: readonly string[],
  row: Readonly<Record<string, unknown>> = state.row,
): Record<string, unknown> {
  const out = emptyRow()
  // Key columns the server fills, left out (or null): the insert leaves them to their DEFAULT.
  const serverKeys = state.status === 'new' ? keyFills(state.table).server : NO_COLUMNS
  for (const column of state.table.columns) {
    const name = column.name
    if (columns ? !columns.includes(name) : !(name in row)) continue
    if (serverKeys.length > 0 && serverKeys.includes(column) && row[name] == null) continue
    out[name] = resolveReference(row[name], column, state.table, owner)
  }
  return out
}

/** The primary key of a stored row, as the database holds it (its snapshot's). */
export function keyValues(state: EntityState): Record<string, unknown> {
  const out = emptyRow()
  for (const k of state.table.primaryKey) out[k] = state.snapshot?.[k] ?? state.row[k]
  return out
}

/** The version a stored row had when loaded, when its table has a version column. */
export function versionOf(state: EntityState): number | undefined {
  const v = state.table.versionColumn
  if (!v) return undefined
  const value = state.snapshot?.[v]
  return value === null || value === undefined ? undefined : Number(value)
}
