/**
 * Proleptic Gregorian calendar arithmetic on astronomical years (year 0 is 1 BC), as PostgreSQL
 * uses. Pure integer math, valid far beyond the range of a JS Date.
 */

export const MS_PER_DAY = 86_400_000

/** Days since 1970-01-01 of a calendar date. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146_097 + doe - 719_468
}

export interface CivilDate {
  readonly year: number
  readonly month: number
  readonly day: number
}

/** The calendar date of a day number (days since 1970-01-01). */
export function civilFromDays(days: number): CivilDate {
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
  return { year, month, day }
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0)
}

/** Earliest date PostgreSQL stores in `date` and `timestamp`: 4714-11-24 BC. */
export const MIN_DAY = daysFromCivil(-4713, 11, 24)
/** Latest `date`: 5874897-12-31. */
export const MAX_DATE_DAY = daysFromCivil(5_874_897, 12, 31)
/** Earliest timestamp, in ms since the epoch. */
export const MIN_TIMESTAMP_MS = MIN_DAY * MS_PER_DAY
/** A JS Date holds at most ±8.64e15 ms; pipeflush reads `infinity` and `-infinity` as these two Dates. */
export const DATE_LIMIT_MS = 8.64e15

/** `00` to `99`, and `000` to `999`: the fields of every date and time written, made once. */
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'))
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'))

/**
 * `n` (not negative) with leading zeros to `width` digits. Looked up for the widths of months, days,
 * hours... and milliseconds: a flush writes these for every timestamp, where a number's text and its
 * padded copy were two strings per field.
 */
function pad(n: number, width: number): string {
  const known = width === 2 ? TWO_DIGITS[n] : width === 3 ? THREE_DIGITS[n] : undefined
  return known ?? String(n).padStart(width, '0')
}

/** PostgreSQL's ISO text of a calendar date without the era: `2024-01-02`, `0044-03-15` (with `bc`). */
export function formatCivil(date: CivilDate): { readonly text: string; readonly bc: boolean } {
  const bc = date.year <= 0
  const year = bc ? 1 - date.year : date.year
  return { text: `${pad(year, 4)}-${pad(date.month, 2)}-${pad(date.day, 2)}`, bc }
}

/** `hh:mm:ss.mmm` of a millisecond-of-day. */
export function formatTimeOfDay(ms: number): string {
  const h = Math.floor(ms / 3_600_000)
  const m = Math.floor(ms / 60_000) % 60
  const s = Math.floor(ms / 1000) % 60
  return `${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}.${pad(ms % 1000, 3)}`
}
