import { copyDate } from '../values/timestamp.ts'

/**
 * A copy of a value for a snapshot, so that mutating the entity's value in place (a json object, an
 * array, a Buffer, a Date) is seen as a change at the next flush.
 */
export function cloneValue<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value
  if (Buffer.isBuffer(value)) return Buffer.from(value) as T
  if (value instanceof Uint8Array) return new Uint8Array(value) as T
  if (value instanceof Date) return copyDate(value) as T
  const plain = plainCopy(value, 0)
  if (plain !== NOT_PLAIN) return plain as T
  return structuredClone(value) // throws for what no column can hold (a function inside json...)
}

/** What {@link plainCopy} returns for a value it leaves to `structuredClone`. */
const NOT_PLAIN: unique symbol = Symbol('not plain')

/** Nesting past which a value is left to `structuredClone` (which also copies cycles). */
const MAX_PLAIN_DEPTH = 32

/**
 * A copy of JSON-like data (arrays, objects whose prototype is `Object.prototype` or null, and
 * primitives other than functions and symbols), as `structuredClone` would make it but without its
 * serializer, which costs several times more for the small objects json columns usually hold.
 * Anything else inside (a Date, a Map, a class instance, a function, a `__proto__` key) gives
 * {@link NOT_PLAIN}, and the caller uses `structuredClone` for the whole value.
 */
function plainCopy(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null)
    return typeof value === 'function' || typeof value === 'symbol' ? NOT_PLAIN : value
  if (depth >= MAX_PLAIN_DEPTH) return NOT_PLAIN
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length)
    for (let i = 0; i < value.length; i++) {
      const copy = plainCopy(value[i], depth + 1)
      if (copy === NOT_PLAIN) return NOT_PLAIN
      out[i] = copy
    }
    return out
  }
  const proto: unknown = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    if (key === '__proto__') return NOT_PLAIN
    const copy = plainCopy((value as Record<string, unknown>)[key], depth + 1)
    if (copy === NOT_PLAIN) return NOT_PLAIN
    out[key] = copy
  }
  return out
}
