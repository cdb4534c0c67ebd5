import { errors } from '../errors.ts'
import type { ColumnModel, TableModel } from '../model/model.ts'
import { perTable } from '../schema/per-table.ts'
import { normalizeKeyValue, type ValueLocation } from '../values/index.ts'
import { emptyRow } from './row.ts'

/**
 * The canonical identity-map key of a row: the normalized primary key value, or a JSON array of them
 * for composite keys. Null when a key column has no value yet.
 */
export function rowKey(table: TableModel, values: Readonly<Record<string, unknown>>): string | null {
  const single = singleKeyOf(table)
  if (single !== undefined) {
    const v = values[single.column.name]
    if (v === null || v === undefined) return null
    return normalizeKeyValue(v, single.column, single.at)
  }
  const parts: string[] = []
  for (const name of table.primaryKey) {
    const v = values[name]
    if (v === null || v === undefined) return null
    parts.push(normalizeKeyValue(v, table.columnsByName.get(name)!, { table: table.key }))
  }
  return parts.length === 1 ? parts[0]! : JSON.stringify(parts)
}

/** A one-column primary key's column and where its values are (found once per table), else undefined. */
const singleKeyOf: (table: TableModel) => { column: ColumnModel; at: ValueLocation } | undefined = perTable(
  (table) =>
    table.primaryKey.length === 1
      ? { column: table.columnsByName.get(table.primaryKey[0]!)!, at: { table: table.key } }
      : undefined,
)

/**
 * The key a caller passes to `load`: a single value for one-column keys, or an object of the key
 * columns for composite keys, as a where-object.
 */
export function keyWhere(table: TableModel, key: unknown): Record<string, unknown> {
  if (table.primaryKey.length === 1) {
    const name = table.primaryKey[0]!
    let value = key
    if (
      typeof key === 'object' &&
      key !== null &&
      !(key instanceof Date) &&
      !Buffer.isBuffer(key) &&
      name in key
    ) {
      value = (key as Record<string, unknown>)[name]
    }
    if (value === undefined || value === null) {
      throw errors.keyNeeded(table.key, name, String(value))
    }
    return { [name]: value }
  }
  if (typeof key !== 'object' || key === null) {
    throw errors.compositeKeyNeeded(table.key, table.primaryKey, String(key))
  }
  const out = emptyRow()
  for (const name of table.primaryKey) {
    const value = (key as Record<string, unknown>)[name]
    if (value === undefined || value === null) {
      throw errors.keyColumnLacking(table.key, name)
    }
    out[name] = value
  }
  return out
}
