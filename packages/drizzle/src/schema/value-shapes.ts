import type { PgColumn } from 'drizzle-orm/pg-core'

/**
 * The check of the value a geometric or vector column's Drizzle class writes from, run before the
 * class's `mapToDriverValue`, or undefined for a column without one. Those classes write their text
 * from the value's parts without looking at them (a point `{ x: 1 }` becomes `(1,undefined)`), so a
 * value of the wrong shape would reach the server as text the application never wrote: the check
 * throws first, naming the shape the column takes, and pipeflush reports it as `INVALID_VALUE`
 * before anything is sent.
 *
 * @example
 * shapeCheck(point('at'))?.({ x: 1 }) // throws: expected [x, y], an array of 2 numbers
 */
export function shapeCheck(column: PgColumn): ((value: unknown) => void) | undefined {
  const tuple = TUPLES[column.columnType]
  if (tuple !== undefined) return (value) => checkTuple(value, tuple)
  const object = OBJECTS[column.columnType]
  if (object !== undefined) return (value) => checkObject(value, object)
  if (VECTORS.has(column.columnType)) {
    const dimensions = (column as { dimensions?: number }).dimensions
    return (value) => checkVector(value, dimensions)
  }
  return undefined
}

/** The columns written from an array of numbers, and its parts' names. */
const TUPLES: Readonly<Record<string, readonly string[]>> = {
  PgPointTuple: ['x', 'y'],
  PgLine: ['a', 'b', 'c'],
  PgGeometry: ['x', 'y'],
}

/** The columns written from an object of numbers, and its properties. */
const OBJECTS: Readonly<Record<string, readonly string[]>> = {
  PgPointObject: ['x', 'y'],
  PgLineABC: ['a', 'b', 'c'],
  PgGeometryObject: ['x', 'y'],
}

/** pgvector's columns written from an array of numbers of any length (`JSON.stringify`). */
const VECTORS: ReadonlySet<string> = new Set(['PgVector', 'PgHalfVector'])

function checkTuple(value: unknown, parts: readonly string[]): void {
  if (!Array.isArray(value) || value.length !== parts.length || !value.every(isNumber))
    throw new Error(`expected [${parts.join(', ')}], an array of ${parts.length} numbers`)
}

function checkObject(value: unknown, parts: readonly string[]): void {
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    !parts.every((p) => isNumber((value as Record<string, unknown>)[p]))
  )
    throw new Error(`expected { ${parts.join(', ')} }, an object of ${parts.length} numbers`)
}

/** pgvector refuses NaN and infinities, and a length other than the column's dimensions. */
function checkVector(value: unknown, dimensions: number | undefined): void {
  if (!Array.isArray(value) || !value.every((v) => isNumber(v) && Number.isFinite(v)))
    throw new Error('expected an array of finite numbers')
  if (dimensions !== undefined && value.length !== dimensions)
    throw new Error(`expected ${dimensions} numbers, got ${value.length}`)
}

function isNumber(value: unknown): value is number {
  return typeof value === 'number'
}
