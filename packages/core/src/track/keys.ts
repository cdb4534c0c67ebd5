import { errors } from '../errors.ts'
import type { TableModel } from '../model/model.ts'
import { normalizeKeyValue } from '../values/index.ts'
import { emptyRow } from './row.ts'

/**
 * The canonical identity-map key of a row: the normalized primary key value, or a JSON array of them
 * for composite keys. Null when a key column has no value yet.
 */
export function rowKey(table: TableModel, values: Readonly<Record<string, unknown>>): string | null {
  if (table.primaryKey.length === 1) {
    const name = table.primaryKey[0]!
    const v = values[name]
    if (v === null || v === undefined) return null
    return normalizeKeyValue(v, table.columnsByName.get(name)!, { table: table.key })
  }
  const parts: string[] = []
  for (const name of table.primaryKey) {
    const v = values[name]
    if (v === null || v === undefined) return null
    parts.push(normalizeKeyValue(v, table.columnsByName.get(name)!, { table: table.key }))
  }
  return parts.length === 1 ? parts[0]! : JSON.stringify(parts)
}

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
