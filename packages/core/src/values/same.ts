import type { ColumnModel } from '../schema/model.ts'
import { codecFor } from './codecs.ts'

/**
 * Whether two values of `column` would be stored as the same value, for dirty checking. Works on
 * decoded values and on the forms {@link encodeValue} accepts: int8 `1`, `'1'` and `1n` are the same,
 * numerics compare by value (`'1.50'` and `1.5`), Dates by time, bytes by content, JSON by deep
 * equality (key order ignored), `char(n)` ignoring trailing spaces, float4 after `Math.fround`,
 * float8 with `Object.is` (`-0` differs from `0`, NaN equals NaN), arrays element by element. Never
 * throws: a value that cannot be encoded is different from everything but itself.
 */
export function sameValue(a: unknown, b: unknown, column: ColumnModel): boolean {
  if (a === null || b === null || a === undefined || b === undefined) return a === b && a === null
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
