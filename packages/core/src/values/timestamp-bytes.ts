import { DATE_LIMIT_MS, MIN_TIMESTAMP_MS, MS_PER_DAY } from './calendar.ts'

/** The most bytes {@link writeTimestampText} writes (`-infinity`, or a year of 6 digits, BC, offset). */
export const TIMESTAMP_TEXT_BYTES = 40

/**
 * Whether `ms` is the time of a Date `timestampText` writes (not NaN, not before 4714-11-24 BC): what
 * {@link writeTimestampText} takes. Any other is left to `encodeValue`, which names the problem.
 */
export function writableTime(ms: number): boolean {
  return ms >= MIN_TIMESTAMP_MS || ms === -DATE_LIMIT_MS
}

/**
 * Writes `timestampText` of the Date of time `ms` (see {@link writableTime}) as ASCII into `out` at
 * `at`, room for {@link TIMESTAMP_TEXT_BYTES} checked by the caller; answers the offset after it. The
 * same text, byte for byte, without a string: a large insert writes one per row into its COPY data,
 * where the text's pieces were a dozen short-lived strings and objects.
 */
export function writeTimestampText(out: Uint8Array, at: number, ms: number, withZone: boolean): number {
  if (ms === DATE_LIMIT_MS) return writeAscii(out, at, 'infinity')
  if (ms === -DATE_LIMIT_MS) return writeAscii(out, at, '-infinity')
  const days = Math.floor(ms / MS_PER_DAY)
  // The calendar date of `days` (as `civilFromDays`, without its object).
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  )
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp < 10 ? mp + 3 : mp - 9
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0)
  const bc = year <= 0
  let i = writeNumber(out, at, bc ? 1 - year : year, 4)
  out[i++] = DASH
  i = writeNumber(out, i, month, 2)
  out[i++] = DASH
  i = writeNumber(out, i, day, 2)
  out[i++] = SPACE
  const time = ms - days * MS_PER_DAY
  i = writeNumber(out, i, Math.floor(time / 3_600_000), 2)
  out[i++] = COLON
  i = writeNumber(out, i, Math.floor(time / 60_000) % 60, 2)
  out[i++] = COLON
  i = writeNumber(out, i, Math.floor(time / 1000) % 60, 2)
  out[i++] = DOT
  i = writeNumber(out, i, time % 1000, 3)
  if (withZone) i = writeAscii(out, i, '+00')
  if (bc) i = writeAscii(out, i, ' BC')
  return i
}

/**
 * `n` (an integer, not negative, below 2^31: a year, a field of a date or time) in decimal, zeros
 * before it to `width` digits at least. Small-integer arithmetic (`| 0`), no division of doubles.
 */
function writeNumber(out: Uint8Array, at: number, n: number, width: number): number {
  let digits = 1
  for (let rest = n | 0; rest >= 10; rest = (rest / 10) | 0) digits++
  const length = Math.max(digits, width)
  let rest = n | 0
  for (let k = length - 1; k >= 0; k--) {
    const next = (rest / 10) | 0
    out[at + k] = ZERO + rest - next * 10
    rest = next
  }
  return at + length
}

function writeAscii(out: Uint8Array, at: number, text: string): number {
  for (let k = 0; k < text.length; k++) out[at + k] = text.charCodeAt(k)
  return at + text.length
}

const ZERO = 48
const DASH = 45
const SPACE = 32
const COLON = 58
const DOT = 46
