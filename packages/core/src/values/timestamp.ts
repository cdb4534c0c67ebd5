import type { ColumnModel } from '../model/model.ts'
import {
  civilFromDays,
  DATE_LIMIT_MS,
  daysFromCivil,
  daysInMonth,
  formatCivil,
  formatTimeOfDay,
  MIN_TIMESTAMP_MS,
  MS_PER_DAY,
} from './calendar.ts'
import type { ScalarCodec } from './codec.ts'
import { describeWritten, problem } from './location.ts'

/**
 * What a Date read from a timestamp with microseconds remembers of them: the Date's time when read
 * and the microseconds past that millisecond (1-999). A Date holds milliseconds; a row's key, and a
 * value written back unchanged, need the stored microseconds (a key `2022-01-24 21:40:19.596521`
 * matched as `.596` finds no row). A non-enumerable property, invisible to the application; a
 * registered symbol, so that `@pipeflush/drizzle` marks the Dates Drizzle's mapping makes alike.
 */
const SUB_MS: symbol = Symbol.for('pipeflush.subMilliseconds')

interface SubMs {
  /** The Date's time when read: after a `setTime` the microseconds no longer apply. */
  readonly ms: number
  readonly us: number
}

/**
 * The microseconds past the millisecond `date` was read with (0 when none, or its time changed since).
 *
 * @example
 * subMilliseconds(keyDate, keyDate.getTime()) // 521 for a key read as 21:40:19.596521
 */
export function subMilliseconds(date: Date, ms: number): number {
  const sub = (date as unknown as Record<symbol, SubMs | undefined>)[SUB_MS]
  return sub !== undefined && sub.ms === ms ? sub.us : 0
}

/**
 * A copy of `date` (a snapshot's), with the microseconds it was read with.
 *
 * @example
 * copyDate(parseTimestampText('2022-01-24 21:40:19.596521+00', true)) // writes back .596521
 */
export function copyDate(date: Date): Date {
  const ms = date.getTime()
  const copy = new Date(ms)
  const us = subMilliseconds(date, ms)
  if (us !== 0) Object.defineProperty(copy, SUB_MS, { value: { ms, us } })
  return copy
}

const TIMESTAMP_TEXT =
  /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:([+-])(\d{2})(?::(\d{2}))?(?::(\d{2}))?)?( BC)?$/

/**
 * The text of a Date for `timestamptz` (`withZone`, absolute instant, written with offset `+00`) or
 * `timestamp` (the Date's UTC wall clock, no offset). Any Date PostgreSQL can store is written
 * exactly, BC years included; `new Date(8.64e15)` and `new Date(-8.64e15)` (the largest and smallest
 * Dates) are written as `infinity` and `-infinity`.
 *
 * Timestamps go as text, written exactly, so a Date reads back equal to what was written.
 */
export function timestampText(value: unknown, withZone: boolean): string {
  const ms = timestampMs(value, withZone)
  if (ms === DATE_LIMIT_MS) return 'infinity'
  if (ms === -DATE_LIMIT_MS) return '-infinity'
  const days = Math.floor(ms / MS_PER_DAY)
  const { text, bc } = formatCivil(civilFromDays(days))
  const us = subMilliseconds(value as Date, ms)
  const micros = us === 0 ? '' : String(us).padStart(3, '0')
  return `${text} ${formatTimeOfDay(ms - days * MS_PER_DAY)}${micros}${withZone ? '+00' : ''}${bc ? ' BC' : ''}`
}

/** The time of a Date {@link timestampText} writes, or the problem it meets (nothing written). */
function timestampMs(value: unknown, withZone: boolean): number {
  const type = withZone ? 'timestamptz' : 'timestamp'
  if (!(value instanceof Date)) problem(`expected a Date for ${type}, got ${describeWritten(value)}`, value)
  const ms = value.getTime()
  if (Number.isNaN(ms)) problem(`an invalid Date is not a valid ${type}`)
  if (ms < MIN_TIMESTAMP_MS && ms !== -DATE_LIMIT_MS)
    problem(`${describeWritten(value)} is before 4714-11-24 BC, the earliest ${type}`, value)
  return ms
}

/**
 * The Date of a `timestamp`/`timestamptz` text in PostgreSQL's ISO output (any session time zone,
 * offsets with minutes or seconds, ` BC`, years above 9999). Microseconds are truncated to
 * milliseconds in its time; with `keepMicros` (a primary key column's) also remembered beside it
 * (see `SUB_MS`): written back unchanged it is the stored timestamp. Other columns' Dates are not
 * marked: an unchanged value is not written back, and marking costs every read. `infinity` and
 * `-infinity` read as `new Date(8.64e15)` and `new Date(-8.64e15)`.
 */
export function parseTimestampText(text: string, withZone: boolean, keepMicros = false): Date {
  if (text === 'infinity') return new Date(DATE_LIMIT_MS)
  if (text === '-infinity') return new Date(-DATE_LIMIT_MS)
  const type = withZone ? 'timestamptz' : 'timestamp'
  const m = TIMESTAMP_TEXT.exec(text)
  if (m === null || (m[8] !== undefined) !== withZone) {
    problem(
      `cannot decode ${describeWritten(text)} as ${type} (pipeflush reads timestamps with DateStyle ISO)`,
      text,
    )
  }
  const [
    ,
    y = '',
    mo = '',
    d = '',
    h = '',
    mi = '',
    s = '',
    frac = '',
    offSign,
    oh = '0',
    om = '0',
    os = '0',
    bc,
  ] = m
  const year = bc === undefined ? Number(y) : 1 - Number(y)
  const month = Number(mo)
  const day = Number(d)
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    problem(`cannot decode ${describeWritten(text)} as ${type}`, text)
  }
  const offsetMs =
    offSign === undefined
      ? 0
      : (offSign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60 + Number(os)) * 1000
  const ms =
    daysFromCivil(year, month, day) * MS_PER_DAY +
    Number(h) * 3_600_000 +
    Number(mi) * 60_000 +
    Number(s) * 1000 +
    Number(frac.padEnd(3, '0').slice(0, 3)) -
    offsetMs
  // The limits themselves are Dates (the largest and smallest a Date holds); a microsecond past is not.
  const beyond =
    Math.abs(ms) > DATE_LIMIT_MS || (Math.abs(ms) === DATE_LIMIT_MS && /[1-9]/.test(frac.slice(3)))
  if (beyond || Number.isNaN(ms))
    problem(`${describeWritten(text)} is outside the range of a JavaScript Date`, text)
  const date = new Date(ms)
  if (keepMicros && frac.length > 3) {
    const us = Number(frac.slice(3).padEnd(3, '0'))
    if (us !== 0) Object.defineProperty(date, SUB_MS, { value: { ms, us } })
  }
  return date
}

/**
 * A timestamp's input text, in the ISO forms PostgreSQL reads: `T` or a space between date and time,
 * seconds and their fraction optional, then `Z` or an offset (`+02`, `+0200`, `+02:00`), then ` BC`.
 */
const TIMESTAMP_INPUT =
  /^\s*(\d{4,})-(\d{1,2})-(\d{1,2})(?:[Tt]|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?\s*(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?)?(\s+BC)?\s*$/

/**
 * The key form of a timestamp given as text (a column declared `text: true`, as `@pipeflush/drizzle`
 * declares Drizzle's timestamps, whose values are the server's text): the instant (`timestamptz`, by
 * `withZone`) or the wall clock (`timestamp`) it stands for, in {@link timestampText}'s form, so that
 * `'2022-06-01T12:00:00.5Z'`, `'2022-06-01 12:00:00.500+00'` and `'2022-06-01 14:00:00.5+02'` (the
 * server's output under another TimeZone) are one key, as the server holds them one value. Undefined
 * when the text is in no form read here, or is a `timestamptz` without an offset (the session's
 * TimeZone says which instant it is): such a text is its own key.
 *
 * @example
 * timestampTextKey('2022-06-01T12:00:00.5Z', true) // '2022-06-01 12:00:00.500+00'
 */
export function timestampTextKey(text: string, withZone: boolean): string | undefined {
  if (text === 'infinity' || text === '-infinity') return text
  const m = TIMESTAMP_INPUT.exec(text)
  if (m === null) return undefined
  const [, y = '', mo = '', d = '', h = '', mi = '', s = '00', frac = '', zulu, sign, oh, om, os, bc] = m
  // Fields the server refuses (a text it rejects must not be the key of a value it holds).
  const hour = Number(h)
  const past24 = hour === 24 && (Number(mi) !== 0 || Number(s) !== 0 || /[1-9]/.test(frac))
  if (hour > 24 || past24 || Number(mi) > 59 || Number(s) > 60 || Number(y) === 0) return undefined
  if (Number(oh ?? 0) > 15 || Number(om ?? 0) > 59 || Number(os ?? 0) > 59) return undefined
  const offset =
    zulu !== undefined ? '+00' : sign === undefined ? undefined : `${sign}${oh}:${om ?? '00'}:${os ?? '00'}`
  // A timestamp without time zone ignores an offset, as the server does.
  if (withZone && offset === undefined) return undefined
  const two = (part: string) => part.padStart(2, '0')
  const normalized = `${y}-${two(mo)}-${two(d)} ${two(h)}:${mi}:${s}${frac}${withZone ? offset : ''}${bc === undefined ? '' : ' BC'}`
  try {
    return timestampText(parseTimestampText(normalized, withZone, true), withZone)
  } catch {
    return undefined // not a timestamp the server takes: it says so
  }
}

/** The special inputs of the timestamp types (their case and surrounding spaces aside). */
const SPECIAL_INPUTS: ReadonlySet<string> = new Set([
  'infinity',
  '+infinity',
  '-infinity',
  'epoch',
  'now',
  'today',
  'tomorrow',
  'yesterday',
])

/** A text that starts with an ISO date (`2024-01-05`, a year of four digits or more). */
const ISO_DATE = /^\s*(\d{4,})-(\d{1,2})-(\d{1,2})(?!\d)/

/**
 * Checks the text of a timestamp given as text (a column declared `text: true`, as `@pipeflush/drizzle`
 * declares Drizzle's `mode: 'string'` timestamps) before it is sent, where it can be told: a text
 * without a digit is one of the special inputs (`infinity`, `epoch`, `now`...); one that starts with an
 * ISO date has that date's month and day in range, and in the ISO forms read here (see
 * {@link timestampTextKey}) its time and offset too. Other forms the server reads (`January 8 04:05:06
 * 1999 PST`, a time zone's name after the time) are left to the server, which checks them.
 *
 * @example
 * checkTimestampText('2024-01-05 12:00:00+02') // fine
 * checkTimestampText('2024-13-45 25:61:00') // throws: not a timestamp
 */
export function checkTimestampText(text: string): void {
  if (!/\d/.test(text)) {
    if (SPECIAL_INPUTS.has(text.trim().toLowerCase())) return
    notTimestampText(text)
  }
  const date = ISO_DATE.exec(text)
  if (date === null) return
  const year = Number(date[1])
  const month = Number(date[2])
  const day = Number(date[3])
  // A year BC as the calendar counts it (1 BC is year 0, a leap year).
  const calendarYear = /\sBC\s*$/.test(text) ? 1 - year : year
  if (year === 0 || day < 1 || day > daysInMonth(calendarYear, month)) notTimestampText(text)
  if (TIMESTAMP_INPUT.test(text) && timestampTextKey(text, false) === undefined) notTimestampText(text)
}

function notTimestampText(text: string): never {
  return problem(
    `${describeWritten(text)} is not a timestamp: give its ISO text ('2024-01-05 12:00:00+00'), 'infinity' or '-infinity'`,
    text,
  )
}

/**
 * Refuses a primary key's Date that its column would round (`timestamptz(0)` given milliseconds): the
 * row would not be found by the key given.
 */
function checkKeyPrecision(value: unknown, column: ColumnModel, withZone: boolean): void {
  const p = column.timePrecision
  if (p === undefined || column.keyPart !== true || !(value instanceof Date)) return
  const ms = value.getTime()
  if (Math.abs(ms) === DATE_LIMIT_MS || ms % 10 ** (3 - p) === 0) return
  problem(
    `${describeWritten(value)} has more fractional digits of a second than the key column's ${withZone ? 'timestamptz' : 'timestamp'}(${p}) keeps: the server would store it rounded, and the row would not be found by the key given; give the key as it is stored`,
    value,
  )
}

function makeTimestampCodec(withZone: boolean): ScalarCodec {
  return {
    encode: (value, column) => {
      const text = timestampText(value, withZone)
      if (column.timePrecision !== undefined) checkKeyPrecision(value, column, withZone)
      return text
    },
    check: (value, column) => {
      timestampMs(value, withZone)
      if (column.timePrecision !== undefined) checkKeyPrecision(value, column, withZone)
    },
    decode: (text, column) => parseTimestampText(text, withZone, column.keyPart === true),
    same: (a, b) => a instanceof Date && b instanceof Date && Object.is(a.getTime(), b.getTime()),
    key: (value) => timestampText(value, withZone),
    compareKeys(a, b) {
      const x = parseTimestampText(a, withZone).getTime()
      const y = parseTimestampText(b, withZone).getTime()
      // Within one millisecond the texts differ by their microseconds alone, which order as texts.
      return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0
    },
  }
}

/**
 * `timestamptz`: a Date (an instant). Written exactly (to the millisecond), read exactly in any
 * session time zone; stored microseconds are truncated to milliseconds in the Date's time, and kept
 * for writing it back (a key holding them finds its row).
 */
export const timestamptzCodec: ScalarCodec = makeTimestampCodec(true)

/**
 * `timestamp` (without time zone): a Date whose UTC fields are the wall-clock value, so
 * `new Date('2024-01-02T03:04:05Z')` stores `2024-01-02 03:04:05`. Strings are not accepted.
 */
export const timestampCodec: ScalarCodec = makeTimestampCodec(false)
