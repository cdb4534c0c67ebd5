import {
  civilFromDays,
  DATE_LIMIT_MS,
  daysFromCivil,
  daysInMonth,
  formatCivil,
  MAX_DATE_DAY,
  MIN_DAY,
  MS_PER_DAY,
} from './calendar.ts'
import type { ScalarCodec } from './codec.ts'
import { describeWritten, problem } from './location.ts'
import { compareCodeUnits } from './text.ts'

const DATE_TEXT = /^(\d{4,})-(\d{2})-(\d{2})( BC)?$/

/**
 * The day number (days since 1970-01-01) of a `date` text in PostgreSQL's ISO form, or undefined when
 * it is not one: `YYYY-MM-DD` with an optional ` BC`, years above 9999 with more digits.
 */
export function parseDateText(text: string): number | undefined {
  const m = DATE_TEXT.exec(text)
  if (m === null) return undefined
  const [, yearText = '', monthText = '', dayText = '', bc] = m
  if (yearText.length > 4 && yearText.startsWith('0')) return undefined
  const year = Number(yearText)
  const month = Number(monthText)
  const day = Number(dayText)
  if (year === 0 || month < 1 || month > 12) return undefined
  const astronomical = bc === undefined ? year : 1 - year
  if (day < 1 || day > daysInMonth(astronomical, month)) return undefined
  return daysFromCivil(astronomical, month, day)
}

/** The UTC day of a Date written as a `date` (days since 1970-01-01), or the problem it meets. */
function dayOfDate(value: Date): number {
  const ms = value.getTime()
  if (Number.isNaN(ms)) problem('an invalid Date is not a valid date')
  const days = Math.floor(ms / MS_PER_DAY)
  if (days < MIN_DAY) problem(`${describeWritten(value)} is before 4714-11-24 BC, the earliest date`, value)
  return days
}

function dayText(days: number): string {
  const { text, bc } = formatCivil(civilFromDays(days))
  return bc ? `${text} BC` : text
}

/**
 * The text of a `date` written as a `YYYY-MM-DD` string (or `YYYY-MM-DD BC`, `infinity`,
 * `-infinity`, as reads return them) or as a Date, whose UTC calendar date is taken (its time of day
 * is dropped); `new Date(8.64e15)` and `new Date(-8.64e15)`, the largest and smallest Dates, are
 * `infinity` and `-infinity`, as a timestamp column writes them.
 *
 * Values go as text; the Date's UTC date is taken, so the process's time zone changes nothing.
 */
export function dateText(value: unknown): string {
  if (value instanceof Date) {
    // The largest and smallest Dates stand for infinity, as in a timestamp column.
    const time = value.getTime()
    if (time === DATE_LIMIT_MS) return 'infinity'
    if (time === -DATE_LIMIT_MS) return '-infinity'
    return dayText(dayOfDate(value))
  }
  if (typeof value !== 'string')
    problem(`expected a 'YYYY-MM-DD' string or a Date for date, got ${describeWritten(value)}`, value)
  if (value === 'infinity' || value === '-infinity') return value
  const days = parseDateText(value)
  if (days === undefined)
    problem(`${describeWritten(value)} is not a valid date (expected 'YYYY-MM-DD')`, value)
  if (days < MIN_DAY || days > MAX_DATE_DAY)
    problem(`${describeWritten(value)} is out of range for date`, value)
  return value
}

/** Whether `value` is a Date whose time is NaN (`new Date('infinity')`). */
function isInvalidDate(value: unknown): boolean {
  return value instanceof Date && Number.isNaN(value.getTime())
}

function dayOf(text: string): number {
  if (text === 'infinity') return Number.POSITIVE_INFINITY
  if (text === '-infinity') return Number.NEGATIVE_INFINITY
  return parseDateText(text) ?? Number.NaN
}

/**
 * `date`: written from a `YYYY-MM-DD` string or a Date (its UTC calendar date); read as the
 * server's `YYYY-MM-DD` text (`infinity`, `-infinity` and `... BC` included), which needs the
 * session's `DateStyle` to be `ISO` (the default).
 */
export const dateCodec: ScalarCodec = {
  encode: dateText,
  check: (value) => {
    if (!(value instanceof Date)) dateText(value)
    else if (Math.abs(value.getTime()) !== DATE_LIMIT_MS) dayOfDate(value) // else infinity
  },
  decode(text) {
    if (text !== 'infinity' && text !== '-infinity' && parseDateText(text) === undefined) {
      problem(
        `cannot decode ${describeWritten(text)} as date (pipeflush reads dates with DateStyle ISO)`,
        text,
      )
    }
    return text
  },
  same(a, b) {
    // An invalid Date (what a column's mapping may read for `infinity`) is the same as another, as
    // for timestamps: a row holding one unchanged is not written.
    if (isInvalidDate(a) && isInvalidDate(b)) return true
    if (a === b) return typeof a === 'string'
    try {
      return dateText(a) === dateText(b)
    } catch {
      return false
    }
  },
  key: dateText,
  compareKeys: (a, b) => {
    const x = dayOf(a)
    const y = dayOf(b)
    return x < y ? -1 : x > y ? 1 : compareCodeUnits(a, b)
  },
}
