import { errors } from '../../errors.ts'
import type { ColumnModel, TableModel } from '../../model/model.ts'
import { columnOf } from '../../schema/checks.ts'
import { keyFillOf } from '../../schema/key-fill.ts'
import { normalizeKeyValue, type ValueLocation } from '../../values/index.ts'
import { Slot } from '../draft.ts'

/** A row's primary key, read while grouping its row. */
export interface RowKey {
  /** The key: a value, or an array for a composite key (parts may be slots); null while the server is to fill part of it. */
  readonly key: unknown
  /**
   * The key values' canonical forms (`normalizeKeyValue`): a string for a single-column key, an array
   * for a composite one ('' for a part the server fills); undefined when a part is a slot.
   */
  readonly id: string | readonly string[] | undefined
  /** Part of the key is left to the server (its DEFAULT), read back once the row is inserted. */
  readonly serverFilled: boolean
}

/**
 * Where a row's values belong, for error messages: `key` (the primary key by column) is built only
 * when a message needs it; a row whose own id is not assigned yet is a new row without key.
 */
export class RowLocation implements ValueLocation {
  readonly table: string
  readonly #names: readonly string[]
  readonly #values: readonly unknown[]

  constructor(table: TableModel, values: readonly unknown[]) {
    this.table = table.key
    this.#names = table.primaryKey
    this.#values = values
  }

  get key(): Readonly<Record<string, unknown>> | undefined {
    // No part known (a slot, or none given): a new row, not `id=undefined`.
    if (this.#values.every((v) => v === undefined || v instanceof Slot)) return undefined
    return Object.fromEntries(
      this.#names.map((name, i) => [name, this.#values[i] instanceof Slot ? undefined : this.#values[i]]),
    )
  }
}

/** The location of the row whose key is `key` (as {@link RowKey.key}), for error messages. */
export function rowLocation(table: TableModel, key: unknown): RowLocation {
  const values = table.primaryKey.length === 1 ? [key] : Array.isArray(key) ? key : []
  return new RowLocation(table, values)
}

/**
 * Reads the primary key of `row`, `read` giving each key column's value (a new row's id not assigned
 * yet as a slot). A new row (`insert`) may leave out a key column the server fills (see `keyFillOf`);
 * any other missing key column is `INVALID_VALUE`, or `UNSUPPORTED_TABLE` when its sequence may not
 * be used by the role. Known key values are checked as keys (`normalizeKeyValue`).
 *
 * New and stored rows read their keys here, so a key is checked the same way in every statement.
 */
export function rowKeyOf<R>(
  table: TableModel,
  row: R,
  read: (row: R, column: ColumnModel, table: TableModel) => unknown,
  insert = false,
): RowKey {
  const names = table.primaryKey
  if (names.length === 1) {
    const name = names[0]!
    const value = read(row, columnOf(table, name), table)
    if (value === undefined || value === null) {
      if (missingKey(table, name, insert)) return SERVER_FILLED_ONE
    }
    if (value instanceof Slot) return slotKey(value)
    return { key: value, id: keyId(value, columnOf(table, name), table), serverFilled: false }
  }
  const values: unknown[] = new Array(names.length)
  let serverFilled = false
  let slotted = false
  for (let i = 0; i < names.length; i++) {
    const value = read(row, columnOf(table, names[i]!), table)
    if ((value === undefined || value === null) && missingKey(table, names[i]!, insert)) {
      serverFilled = true
      continue
    }
    if (value instanceof Slot) slotted = true
    values[i] = value
  }
  const at = new RowLocation(table, values)
  const ids: string[] = new Array(names.length)
  for (let i = 0; i < names.length; i++) {
    const value = values[i]
    ids[i] =
      value === undefined || value instanceof Slot
        ? ''
        : normalizeKeyValue(value, columnOf(table, names[i]!), at)
  }
  return { key: serverFilled ? null : values, id: slotted ? undefined : ids, serverFilled }
}

const SERVER_FILLED_ONE: RowKey = { key: null, id: '', serverFilled: true }

/** The key of a row whose single key column is `slot`: one object per own-key slot (shared by rows). */
function slotKey(slot: Slot): RowKey {
  if (slot.state !== undefined) return { key: slot, id: undefined, serverFilled: false }
  let key = SLOT_KEYS.get(slot)
  if (key === undefined) {
    key = { key: slot, id: undefined, serverFilled: false }
    SLOT_KEYS.set(slot, key)
  }
  return key
}

const SLOT_KEYS = new WeakMap<Slot, RowKey>()

/** {@link normalizeKeyValue} of a single-column key, its row located only when it fails. */
function keyId(value: unknown, column: ColumnModel, table: TableModel): string {
  try {
    return normalizeKeyValue(value, column)
  } catch {
    return normalizeKeyValue(value, column, rowLocation(table, value))
  }
}

/** Whether a key column a row lacks is one the server fills (an insert's); else throws. */
function missingKey(table: TableModel, name: string, insert: boolean): boolean {
  const fill = insert ? keyFillOf(table, columnOf(table, name)) : 'given'
  if (fill === 'server') return true
  if (fill === 'denied') throw errors.sequenceDenied(table.key, name, columnOf(table, name).sequence!)
  throw errors.keyMissing(table.key, name)
}

/** The key's value of key column `i` (the value itself for a single-column key). */
export function keyPart(key: unknown, i: number, parts: number): unknown {
  return parts === 1 ? key : (key as readonly unknown[])[i]
}
