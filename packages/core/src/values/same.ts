import type { ColumnModel } from '../model/model.ts'
import { codecFor } from './codecs.ts'
import { storedValue } from './mapping.ts'

/**
 * Whether two values of `column` would be stored as the same value, for dirty checking. Works on
 * decoded values and on the forms {@link encodeValue} accepts: int8 `1`, `'1'` and `1n` are the same,
 * numerics compare by value (`'1.50'` and `1.5`), Dates by time, bytes by content, JSON by deep
 * equality (key order ignored), `char(n)` ignoring trailing spaces, float4 after `Math.fround`,
 * float8 with `Object.is` (`-0` differs from `0`, NaN equals NaN), arrays element by element. Never
 * throws: a value that cannot be encoded is different from everything but itself, and an invalid Date
 * is the same as another (a snapshot holds a copy of the one read). A column's `mapping` compares what
 * it writes for each value, or, where it cannot write one, the values themselves.
 */
export function sameValue(a: unknown, b: unknown, column: ColumnModel): boolean {
  if (a === null || b === null || a === undefined || b === undefined) return a === b && a === null
  if (column.mapping !== undefined) return sameStored(a, b, column)
  return sameOwn(a, b, column)
}

/** {@link sameValue} of two application values of a column with a mapping: what it writes for each. */
function sameStored(a: unknown, b: unknown, column: ColumnModel): boolean {
  let x: unknown
  let y: unknown
  try {
    x = storedValue(a, column)
    y = storedValue(b, column)
  } catch {
    return sameUnwritable(a, b)
  }
  if (x === null || y === null || x === undefined || y === undefined) return x === y && x === null
  return sameOwn(x, y, column)
}

/**
 * {@link sameValue} of two application values one of which the column's mapping cannot write: Dates
 * by time (an invalid Date, which a mapping of the server's text may read for `infinity` or a date
 * past a Date's range, is the same as another), arrays element by element, anything else itself only.
 * So a row holding such a value unchanged is not written; a new one differs from the value it replaces,
 * and is refused when written (`INVALID_VALUE`).
 */
function sameUnwritable(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return Object.is(a.getTime(), b.getTime())
  if (!Array.isArray(a) || !Array.isArray(b)) return Object.is(a, b)
  return a.length === b.length && a.every((x: unknown, i) => sameUnwritable(x, b[i]))
}

/** {@link sameValue} of two non-null values of pipeflush's own representation. */
function sameOwn(a: unknown, b: unknown, column: ColumnModel): boolean {
  const codec = codecFor(column.type)
  if (!column.isArray) return codec.same(a, b, column)
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x: unknown = a[i]
    const y: unknown = b[i]
    if (x === null || y === null) {
      if (x !== y) return false
    } else if (x === undefined || y === undefined || !codec.same(x, y, column)) {
      return false
    }
  }
  return true
}
