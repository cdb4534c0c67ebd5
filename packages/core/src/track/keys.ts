import { errors } from '../errors.ts'
import type { ColumnModel, TableModel } from '../model/model.ts'
import { perTable } from '../schema/per-table.ts'
import { normalizeKeyValue, plainCodec, type ScalarCodec, type ValueLocation } from '../values/index.ts'
import { emptyRow } from './row.ts'

/**
 * The canonical identity-map key of a row: the normalized primary key value, or a JSON array of them
 * for composite keys. Null when a key column has no value yet.
 */
export function rowKey(table: TableModel, values: Readonly<Record<string, unknown>>): string | null {
  const parts = keyPartsOf(table)
  if (parts.length === 1) {
    const part = parts[0]!
    const v = values[part.column.name]
    return v === null || v === undefined ? null : partKey(part, v)
  }
  const texts: string[] = new Array(parts.length)
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    const v = values[part.column.name]
    if (v === null || v === undefined) return null
    texts[i] = partKey(part, v)
  }
  return JSON.stringify(texts)
}

/** A primary key column, its codec when nothing else decides its key form (a scalar without a mapping), and where its values are. */
interface KeyPart {
  readonly column: ColumnModel
  readonly codec: ScalarCodec | undefined
  readonly at: ValueLocation
}

/** The key columns of `table` as {@link KeyPart}s, found once per table. */
const keyPartsOf: (table: TableModel) => readonly KeyPart[] = perTable((table) => {
  const at = { table: table.key }
  return table.primaryKey.map((name) => {
    const column = table.columnsByName.get(name)!
    return { column, codec: plainCodec(column), at }
  })
})

/**
 * The key form of `v` in `part`'s column: its codec's, as `normalizeKeyValue` finds it for a scalar
 * column without a mapping (called again for a value that is no key, it throws the error naming the
 * column).
 */
function partKey(part: KeyPart, v: unknown): string {
  if (part.codec === undefined) return normalizeKeyValue(v, part.column, part.at)
  try {
    return part.codec.key(v, part.column)
  } catch {
    return normalizeKeyValue(v, part.column, part.at)
  }
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
