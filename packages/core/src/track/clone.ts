/**
 * A copy of a value for a snapshot, so that mutating the entity's value in place (a json object, an
 * array, a Buffer, a Date) is seen as a change at the next flush.
 */
export function cloneValue<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value
  if (Buffer.isBuffer(value)) return Buffer.from(value) as T
  if (value instanceof Uint8Array) return new Uint8Array(value) as T
  if (value instanceof Date) return new Date(value.getTime()) as T
  return structuredClone(value) // throws for what no column can hold (a function inside json...)
}
