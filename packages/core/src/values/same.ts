import type { ColumnModel } from '../model/model.ts'
import { codecFor } from './codecs.ts'
import { storedValue } from './mapping.ts'

/**
 * Whether two values of `column` would be stored as the same value, for dirty checking. Works on
 * decoded values and on the forms {@link encodeValue} accepts: int8 `1`, `'1'` and `1n` are the same,
 * numerics compare by value (`'1.50'` and `1.5`), Dates by time, bytes by content, JSON by deep
 * equality (key order ignored), `char(n)` ignoring trailing spaces, float4 after `Math.fround`,
 * float8 with `Object.is` (`-0` differs from `0`, NaN equals NaN), arrays element by element. Never
 * throws: a value that cannot be encoded is different from everything but itself. A column's `mapping`
 * compares what it writes for each value.
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
    return Object.is(a, b)
  }
  if (x === null || y === null || x === undefined || y === undefined) return x === y && x === null
  return sameOwn(x, y, column)
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
