/** A request body that does not have the expected shape: answered with 400. */
export class BadRequest extends Error {
  override readonly name = 'BadRequest'
}

type Json = unknown

/** `value` as a non-empty string, or a BadRequest naming `path`. */
export function text(value: Json, path: string): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new BadRequest(`${path} must be a non-empty string`)
  return value
}

/** `value` as a finite number within [min, max]. */
export function number(value: Json, path: string, min = -Infinity, max = Infinity): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new BadRequest(`${path} must be a number from ${min} to ${max}`)
  }
  return value
}

/** `value` as an array, each element checked by `item`. */
export function list<T>(value: Json, path: string, item: (v: Json, path: string) => T): T[] {
  if (!Array.isArray(value)) throw new BadRequest(`${path} must be an array`)
  return value.map((v, i) => item(v, `${path}[${i}]`))
}

/** `value` as an object (not null, not an array). */
export function object(value: Json, path: string): Record<string, Json> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new BadRequest(`${path} must be an object`)
  return value as Record<string, Json>
}

/** `check(value)` when `value` is present, else undefined. */
export function optional<T>(value: Json, path: string, check: (v: Json, path: string) => T): T | undefined {
  return value === undefined || value === null ? undefined : check(value, path)
}
