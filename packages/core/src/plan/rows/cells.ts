import { errors } from '../../errors.ts'
import type { ColumnModel, SchemaModel, TableModel } from '../../model/model.ts'
import { writableColumn, writableTable } from '../../schema/checks.ts'
import { keyFills } from '../../schema/key-fill.ts'
import { resolveReference } from '../../track/changes.ts'
import type { EntityState } from '../../track/entity-state.ts'
import { type InsertInput, ownSlot, Slot, type StoredInput } from '../draft.ts'
import type { RowValues } from '../types.ts'
import { conflictRefFor } from './conflict-ref.ts'

/** The table a row names: a change set's by its key (checked here, in row order), an entity's model. */
export function tableOf(schema: SchemaModel, table: TableModel | string): TableModel {
  return typeof table === 'string' ? writableTable(schema, table) : table
}

/**
 * Whether `column` of `state` is a key column a sequence fills that has no value yet: the flush
 * assigns it an id from the pool (see `assignIds`). Until then a cell holding it is a {@link Slot}.
 */
export function unassignedId(state: EntityState, column: string): boolean {
  if (state.status !== 'new') return false
  const value = state.row[column]
  if (value !== undefined && value !== null) return false
  const sequence = keyFills(state.table).sequence
  for (let i = 0; i < sequence.length; i++) if (sequence[i]!.name === column) return true
  return false
}

/**
 * What a reference to an entity whose key is not known yet stands for: a slot pointing at it (an
 * upserted entity's: looked up by its conflict key, whatever its key).
 */
function slotFor(ref: EntityState, column: string): Slot | undefined {
  return conflictRefFor(ref, column) ?? (unassignedId(ref, column) ? new Slot(ref, column) : undefined)
}

/**
 * The value of a new row's cell in `column`: its own id not assigned yet as its own slot, an entity
 * given as a foreign-key value as that entity's key (a slot while it has no id), anything else as
 * given. A change set's values are taken as given.
 *
 * The statements are drafted before the ids are drawn: a cell holds what stands for one until then.
 */
export function insertCell(input: InsertInput, column: ColumnModel, table: TableModel): unknown {
  const value = input.row[column.name]
  const owner = input.owner
  if (owner === undefined) return value
  if ((value === undefined || value === null) && unassignedId(input as EntityState, column.name))
    return ownSlot(column.name)
  return typeof value === 'object' && value !== null
    ? resolveReference(value, column, table, owner, slotFor)
    : value
}

/** The value a stored row sets in `column` (an entity's references resolved as in {@link insertCell}). */
export function setCell(input: StoredInput, column: ColumnModel, table: TableModel): unknown {
  const value = input.row[column.name]
  const state = input.state
  if (state === undefined || typeof value !== 'object' || value === null) return value
  return resolveReference(value, column, table, state.owner, slotFor)
}

/**
 * The columns a new row writes, in table order: a change set's every value (each checked to exist and
 * be writable); an entity's every column it holds and its own ids not assigned yet, but the key
 * columns the server fills that it leaves null (the insert leaves them to their DEFAULT).
 *
 * Rows of one table that write the same columns share a statement (see `groupInserts`).
 */
export function insertColumns(table: TableModel, input: InsertInput): string[] {
  if (input.owner === undefined) return writtenColumns(table, input.row, 'insert')
  const columns: string[] = []
  const row = input.row
  const serverKeys = input.status === 'new' ? keyFills(table).server : NO_COLUMNS
  for (const column of table.columns) {
    const name = column.name
    if (!(name in row)) {
      if (unassignedId(input as EntityState, name)) columns.push(name)
      continue
    }
    const value = row[name]
    if ((value === undefined || value === null) && serverKeys.includes(column)) continue
    writableColumn(table, name, 'insert')
    columns.push(name)
  }
  return columns
}

const NO_COLUMNS: readonly ColumnModel[] = []

/** Columns of `values` in table order, each checked to exist and to be writable by `kind`. */
export function writtenColumns(table: TableModel, values: RowValues, kind: 'insert' | 'update'): string[] {
  const columns: string[] = []
  for (const column of table.columns) if (Object.hasOwn(values, column.name)) columns.push(column.name)
  const names = Object.keys(values)
  // Every own key is a column when the counts match; else the check names the unknown one.
  for (const name of names.length === columns.length ? columns : names) writableColumn(table, name, kind)
  return columns
}

/**
 * The set columns of an update, in table order, each checked to exist and to be updatable: writable,
 * and not one the primary key is generated from (see `TableModel.keyInputs`).
 */
export function setColumns(table: TableModel, names: readonly string[]): readonly string[] {
  const columns = updatableColumns(table, names)
  if (table.keyInputs !== undefined) checkKeyInputs(table, table.keyInputs, columns)
  return columns
}

/** The set columns of an update in table order, each checked to exist and to be writable (see {@link setColumns}). */
function updatableColumns(table: TableModel, names: readonly string[]): readonly string[] {
  // An entity's changed columns come in table order already: then they are the answer, nothing built.
  const all = table.columns
  let k = 0
  for (let c = 0; c < all.length && k < names.length; c++) if (all[c]!.name === names[k]) k++
  if (k === names.length) {
    for (let i = 0; i < names.length; i++) writableColumn(table, names[i]!, 'update')
    return names
  }
  const set = new Set(names)
  const columns: string[] = []
  for (const column of table.columns) if (set.has(column.name)) columns.push(column.name)
  for (const name of names.length === columns.length ? columns : names) writableColumn(table, name, 'update')
  return columns
}

/** `INVALID_STATE` for the first of `names` the primary key is generated from (see {@link setColumns}). */
function checkKeyInputs(
  table: TableModel,
  inputs: ReadonlyMap<string, string>,
  names: readonly string[],
): void {
  for (const name of names) {
    const generates = inputs.get(name)
    if (generates !== undefined) throw errors.keyInputChanged(table.key, name, generates)
  }
}
