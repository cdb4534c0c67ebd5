import type { ColumnModel } from '../model/model.ts'
import { codecFor } from './codecs.ts'
import { int8Text } from './integer.ts'
import type { ValueLocation } from './location.ts'
import { describeWritten, locatedError, problem } from './location.ts'
import { storedValue } from './mapping.ts'
import { compareCodeUnits } from './text.ts'

/**
 * A canonical string for a key value of `column`, for identity maps and foreign-key matching: equal
 * for values PostgreSQL considers equal (int8 `5`, `'5'`, `5n` give `'5'`; numeric `'1.50'` gives
 * `'1.5'`; uuids are lowercased; `char(n)` drops trailing spaces; Dates give their timestamp text;
 * arrays the JSON list of their elements' keys). Throws `INVALID_VALUE` for null, undefined, `json`
 * values (json has no equality) and anything {@link encodeValue} would reject. A column's `mapping`
 * writes the value first.
 */
export function normalizeKeyValue(value: unknown, column: ColumnModel, at?: ValueLocation): string {
  try {
    // A scalar without a mapping: its codec's key, what `keyOf` comes to (in fewer calls).
    if (value !== null && value !== undefined && column.mapping === undefined && !column.isArray)
      return codecFor(column.type).key(value, column)
    return keyOf(value, column)
  } catch (e) {
    throw locatedError(e, column, at)
  }
}

/** {@link normalizeKeyValue}, throwing {@link ValueProblem}s as they come. */
function keyOf(given: unknown, column: ColumnModel): string {
  if (given === null || given === undefined) problem(`${String(given)} cannot be a key`)
  const value = storedValue(given, column)
  if (value === null || value === undefined) problem(`${String(value)} cannot be a key`)
  const codec = codecFor(column.type)
  if (!column.isArray) return codec.key(value, column)
  if (!Array.isArray(value))
    problem(`expected an array for ${column.sqlType}, got ${describeWritten(value)}`, value)
  const keys: (string | null)[] = []
  for (let i = 0; i < value.length; i++) {
    const element: unknown = value[i]
    if (element === undefined) problem(`element ${i} is undefined (use null)`)
    keys.push(element === null ? null : codec.key(element, column))
  }
  return JSON.stringify(keys)
}

/**
 * Orders two strings returned by {@link normalizeKeyValue} for the same column: numerically for
 * integer, numeric and float types, by date/time for dates and timestamps, by label position for enums,
 * by bytes for uuid and bytea, false before true, and by UTF-16 code units for text, arrays and other
 * types (a deterministic order, not the database's).
 */
export function compareNormalizedKeys(a: string, b: string, column: ColumnModel): number {
  if (column.isArray) return compareCodeUnits(a, b)
  return codecFor(column.type).compareKeys(a, b, column)
}

/**
 * Orders two key values of `column` (any form {@link normalizeKeyValue} accepts), as
 * {@link compareNormalizedKeys} does; nulls sort last, as in PostgreSQL's ascending order (for
 * nullable unique columns). Throws `INVALID_VALUE` for other values that cannot be keys. Sorting many
 * rows is cheaper with {@link normalizeKeyValue} once per row and {@link compareNormalizedKeys}.
 */
export function compareKeyValues(a: unknown, b: unknown, column: ColumnModel): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1
  return compareNormalizedKeys(normalizeKeyValue(a, column), normalizeKeyValue(b, column), column)
}

/**
 * A referenced row's key value as the referencing `column` holds it: an `int8` key (held as its
 * decimal text, or as a bigint by a mapping) given to an `int2` or `int4` foreign key as a number,
 * the form those columns take; an integer given to an `int8` column with a mapping as the mapping
 * reads it (a Drizzle `bigint` of `mode: 'number'` holds a number, of `mode: 'bigint'` a bigint,
 * whatever the key's own form); any other value as it is (the column's codec checks it). PostgreSQL
 * lets a foreign key of one integer type reference a key of another (an `int` column referencing a
 * `bigserial` key).
 *
 * @example
 * referencingValue('42', int4Column) // 42
 * referencingValue(42n, int4Column) // 42
 * referencingValue('42', int8Column) // '42'
 */
export function referencingValue(value: unknown, column: ColumnModel): unknown {
  const type = column.type
  if (column.isArray) return value
  if (type === 'int8') return column.mapping === undefined ? value : mappedInt8(value, column)
  if ((type !== 'int4' && type !== 'int2') || column.mapping !== undefined) return value
  if (typeof value === 'bigint') {
    const n = Number(value)
    return Number.isSafeInteger(n) ? n : value
  }
  if (typeof value !== 'string') return value
  const n = Number(value)
  return Number.isSafeInteger(n) && String(n) === value ? n : value
}

/**
 * An integer as an `int8` column with a mapping holds it: what the mapping reads of its decimal text
 * (the form pipeflush decodes int8 in); anything else, and anything the mapping refuses, as it is.
 */
function mappedInt8(value: unknown, column: ColumnModel): unknown {
  if (typeof value !== 'number' && typeof value !== 'bigint' && typeof value !== 'string') return value
  try {
    return column.mapping!.read(int8Text(value))
  } catch {
    return value
  }
}
