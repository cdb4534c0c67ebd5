import type { ColumnModel } from '../model/model.ts'
import { delimitedArrayLiteral } from './array-literal.ts'
import { codecFor, elementsMayBeArrays } from './codecs.ts'
import type { ValueLocation } from './location.ts'
import { describeWritten, locatedError, problem, ValueProblem } from './location.ts'
import { storedValue } from './mapping.ts'

/**
 * Validates a JS value for `column` and returns its PostgreSQL text input form (what the server casts
 * from `text`), or null for SQL NULL. NOT NULL is not checked here: the server reports it with its
 * constraint, and a column default may apply. The column's `mapping`, if any, writes the value first. Throws a `PipeflushError` with code `INVALID_VALUE`
 * naming table, column and row for anything that cannot be stored exactly (undefined, NaN, wrong JS
 * type, out of range, NUL characters, unknown enum labels, nested arrays...).
 *
 * @example
 * encodeValue(5n, int8Column, { table: 'book', key: { id: 7 } }) // '5'
 * encodeValue(['a', null], textArrayColumn, { table: 'book' }) // '{"a",NULL}'
 * encodeValue(Number.NaN, priceColumn, { table: 'book', key: { id: 7 } })
 * // throws: book.price (row id=7): NaN is not a valid numeric
 */
export function encodeValue(value: unknown, column: ColumnModel, at: ValueLocation): string | null {
  if (value === null) return null
  try {
    if (column.mapping === undefined) {
      // A scalar: its codec's text, what `encodeNonNull` comes to (in fewer calls).
      if (!column.isArray && value !== undefined) return codecFor(column.type).encode(value, column)
      return encodeNonNull(value, column)
    }
    if (value === undefined) problem('undefined is not a value (use null for SQL NULL)')
    const stored = storedValue(value, column)
    return stored === null ? null : encodeNonNull(stored, column)
  } catch (e) {
    throw locatedError(e, column, at)
  }
}

/**
 * Validates a JS value for `column` as {@link encodeValue} does, throwing the same `INVALID_VALUE`,
 * without keeping its text: a Date or a number is checked without being written (see
 * `ScalarCodec.check`), any other value is encoded and its text dropped.
 *
 * A large insert is checked when it is planned and written when it is sent: no text per value in between.
 */
export function checkValue(value: unknown, column: ColumnModel, at: ValueLocation): void {
  if (value === null) return
  // A mapped column's value is checked as the mapping writes it: encoded, as `encodeValue` does.
  const check = column.isArray || column.mapping !== undefined ? undefined : codecFor(column.type).check
  if (check === undefined || value === undefined) {
    encodeValue(value, column, at)
    return
  }
  try {
    check(value, column)
  } catch (e) {
    throw locatedError(e, column, at)
  }
}

/** {@link encodeValue} of a value that is not null, throwing {@link ValueProblem}s as they come. */
function encodeNonNull(value: unknown, column: ColumnModel): string {
  if (value === undefined) problem('undefined is not a value (use null for SQL NULL)')
  const codec = codecFor(column.type)
  if (!column.isArray) return codec.encode(value, column)
  if (!Array.isArray(value)) {
    const type = column.type === 'other' || column.type === 'enum' ? column.sqlType : `${column.type}[]`
    problem(`expected an array for ${type}, got ${describeWritten(value)}`, value)
  }
  const nested = !elementsMayBeArrays(column.type)
  const texts: (string | null)[] = new Array(value.length)
  for (let i = 0; i < value.length; i++) {
    const element: unknown = value[i]
    if (element === null) {
      texts[i] = null
      continue
    }
    if (element === undefined) {
      problem(i in value ? `element ${i} is undefined (use null)` : `the array has a hole at index ${i}`)
    }
    if (nested && Array.isArray(element))
      problem(`element ${i} is an array: only one-dimensional arrays are supported`)
    try {
      texts[i] = codec.encode(element, column)
    } catch (e) {
      if (e instanceof ValueProblem) problem(`element ${i}: ${e.message}`)
      throw e
    }
  }
  return delimitedArrayLiteral(texts, column.arrayDelimiter ?? ',')
}

/**
 * {@link encodeValue} of a stored row's key, where a key matches a row (an update's or a delete's
 * WHERE, a load by key): a float key that is `NaN` or `±Infinity` is written as the server's text
 * (`'NaN'`, `'Infinity'`, `'-Infinity'`). Such keys are never written by pipeflush (a new value must
 * be finite), but a row another writer stored with one is read, and is then found again by its key.
 *
 * @example
 * encodeKeyValue(Number.POSITIVE_INFINITY, float8Key, { table: 'reading' }) // 'Infinity'
 */
export function encodeKeyValue(value: unknown, column: ColumnModel, at: ValueLocation): string | null {
  if (
    typeof value === 'number' &&
    !Number.isFinite(value) &&
    (column.type === 'float8' || column.type === 'float4') &&
    !column.isArray &&
    column.mapping === undefined
  )
    return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity'
  return encodeValue(value, column, at)
}
