import { errors } from '../errors.ts'

/**
 * A compiled query's parameters as text, for `em.select` and `em.loadRows` (what `@pipeflush/kysely`
 * and `@pipeflush/drizzle` send of a query given to them), the way pipeflush sends every value:
 * strings as they are, numbers and bigints in decimal, booleans as `true`/`false`, Dates as
 * timestamps (see {@link dateText}), bytes as `\x` hex, null as null, arrays as PostgreSQL array
 * literals (a nested array as a sub-array: `[[1, 2], [3, 4]]` is a two-dimensional array, as the
 * drivers send it), other objects as JSON. The server converts each text to the type the query
 * compares it with. An invalid Date is `INVALID_VALUE`.
 *
 * @example
 * queryParamTexts(['ada', 3, [['a', 'b']], null]) // ['ada', '3', '{{"a","b"}}', null]
 * await em.select({ text: 'select * from book where title = $1', params: queryParamTexts(['Emma']) })
 */
export function queryParamTexts(parameters: readonly unknown[]): (string | null)[] {
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
  if (value instanceof Date) return dateText(value)
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`
  if (Array.isArray(value)) return nestedArrayLiteral(value)
  return JSON.stringify(value)
}

/** The largest time a Date holds (ms): pipeflush writes and reads `infinity` as this, `-infinity` as its negation. */
const DATE_LIMIT_MS = 8.64e15

/**
 * A Date as PostgreSQL reads it, whatever the column (`timestamptz`, `timestamp` or `date`): its
 * ISO timestamp within years 1 to 9999; outside them PostgreSQL reads no ISO text (`+010000-01-01T…`,
 * `-000099-…`), so the year is written as the server writes it: `10000-01-01 00:00:00.000+00`,
 * `0100-01-01 00:00:00.000+00 BC` (the year before 1 is 1 BC). `new Date(8.64e15)` and
 * `new Date(-8.64e15)` are `infinity` and `-infinity`, as pipeflush writes and reads them.
 */
function dateText(value: Date): string {
  const ms = value.getTime()
  if (Number.isNaN(ms)) throw errors.invalidDateParam()
  if (ms === DATE_LIMIT_MS) return 'infinity'
  if (ms === -DATE_LIMIT_MS) return '-infinity'
  const year = value.getUTCFullYear()
  if (year >= 1 && year <= 9999) return value.toISOString()
  // toISOString() is `±YYYYYY-MM-DDTHH:MM:SS.sssZ` here: keep its month to milliseconds.
  const iso = value.toISOString()
  const rest = iso.slice(iso.indexOf('-', 1), -1).replace('T', ' ')
  const bc = year <= 0
  return `${String(bc ? 1 - year : year).padStart(4, '0')}${rest}+00${bc ? ' BC' : ''}`
}

/**
 * An array literal: a nested array as a sub-array (`[[1, 2], [3, 4]]` is `{{"1","2"},{"3","4"}}`, a
 * two-dimensional array, as the drivers write it), any other element quoted.
 */
function nestedArrayLiteral(value: readonly unknown[]): string {
  let out = '{'
  for (let i = 0; i < value.length; i++) {
    if (i > 0) out += ','
    const item: unknown = value[i]
    out += Array.isArray(item) ? nestedArrayLiteral(item) : element(item)
  }
  return `${out}}`
}

/** An element of an array literal: quoted, with `"` and `\` escaped; NULL for null. */
function element(value: unknown): string {
  const t = text(value)
  return t === null ? 'NULL' : `"${t.replace(/["\\]/g, '\\$&')}"`
}
