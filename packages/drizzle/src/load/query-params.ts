import { errors } from '../errors.ts'

/**
 * A Drizzle query's parameters as text, the way pipeflush sends every value: strings as they are,
 * numbers and bigints in decimal, booleans as `true`/`false`, Dates as ISO timestamps, bytes as
 * `\x` hex, null as null, arrays as PostgreSQL array literals, other objects as JSON. The server
 * converts each text to the type the query compares it with.
 */
export function queryParams(parameters: readonly unknown[]): (string | null)[] {
  return parameters.map(text)
}

function text(value: unknown): string | null {
  if (value === null || value === undefined) return null
  if (typeof value === 'string') return value
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return String(value) === 'NaN' ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity'
    return String(value)
  }
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value)
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw errors.invalidDateParam()
    return value.toISOString()
  }
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`
  if (Array.isArray(value)) return `{${value.map(element).join(',')}}`
  return JSON.stringify(value)
}

/** An element of an array literal: quoted, with `"` and `\` escaped; NULL for null. */
function element(value: unknown): string {
  const t = text(value)
  return t === null ? 'NULL' : `"${t.replace(/["\\]/g, '\\$&')}"`
}
