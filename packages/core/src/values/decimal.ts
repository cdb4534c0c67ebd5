import type { ColumnModel } from '../model/model.ts'
import type { ScalarCodec } from './codec.ts'
import { sameByCanonical } from './codec.ts'
import { describeWritten, problem } from './location.ts'

/** A decimal as PostgreSQL reads one: digits on at least one side of the point (`.5`, `5.`). */
const DECIMAL_TEXT = /^([+-]?)(?=\.?\d)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/

/** The white space PostgreSQL skips around a numeric's text (C's `isspace`). */
const SPACES = /^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g

/** PostgreSQL's limits for `numeric`: 131072 digits before the point, 16383 after. */
const MAX_INTEGER_DIGITS = 131072
const MAX_SCALE = 16383

const SPECIALS = new Set(['NaN', 'Infinity', '-Infinity'])

/**
 * The plain decimal text PostgreSQL stores for a `numeric` written as `value` (a finite number, a
 * bigint or a decimal string with optional sign, fraction and exponent, white space around it skipped
 * as the server skips it), or `'NaN'`, `'Infinity'` and
 * `'-Infinity'` as the server prints them (what a read gives). Exponents are expanded and the scale is
 * kept as PostgreSQL keeps it, so the text means the same on every server version. Throws a value
 * problem for anything else, including the numbers `NaN` and `Infinity` (most often a computation's
 * mistake: give the text to mean it).
 */
export function numericText(value: unknown): string {
  let text: string
  if (typeof value === 'bigint') {
    text = value.toString()
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) problem(`${describeWritten(value)} is not a valid numeric`, value)
    text = String(value)
  } else if (typeof value === 'string') {
    text = value
    const n = value.length
    if (n > 0 && (isSpace(value.charCodeAt(0)) || isSpace(value.charCodeAt(n - 1))))
      text = value.replace(SPACES, '')
  } else {
    problem(
      `expected a number, a bigint or a decimal string for numeric, got ${describeWritten(value)}`,
      value,
    )
  }
  if (isStoredForm(text)) return text
  if (typeof value === 'string' && SPECIALS.has(text)) return text
  const m = DECIMAL_TEXT.exec(text)
  if (m === null) problem(`${describeWritten(value)} is not a valid numeric`, value)
  const [, signText, intPart = '', fracPart = '', expText = '0'] = m
  const exponent = Number(expText)
  const all = intPart + fracPart
  const firstNonZero = all.search(/[1-9]/)
  const scale = Math.max(0, fracPart.length - exponent)
  if (scale > MAX_SCALE)
    problem(`${describeWritten(value)} has more than ${MAX_SCALE} digits after the decimal point`, value)
  // The value is all * 10^(exponent - fracPart.length).
  const shift = exponent - fracPart.length
  if (firstNonZero === -1) return scale === 0 ? '0' : `0.${'0'.repeat(scale)}`
  const significant = all.slice(firstNonZero)
  if (significant.length + shift > MAX_INTEGER_DIGITS) {
    problem(
      `${describeWritten(value)} has more than ${MAX_INTEGER_DIGITS} digits before the decimal point`,
      value,
    )
  }
  const minus = signText === '-' ? '-' : ''
  if (shift >= 0) return minus + significant + '0'.repeat(shift)
  const padded = significant.padStart(scale + 1, '0')
  return `${minus}${padded.slice(0, padded.length - scale)}.${padded.slice(padded.length - scale)}`
}

/** Whether `code` is a character of {@link SPACES}. */
function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13)
}

/**
 * Whether `text` is already the form {@link numericText} gives: optional `-` (not before zero), an
 * integer part without leading zeros, an optional fraction of at least one digit, within the limits.
 * Most values a flush writes are (prices as `'23.01'`, `23.01`): returned as they are, without the
 * pattern's match, its parts and the texts made of them.
 */
function isStoredForm(text: string): boolean {
  const n = text.length
  if (n === 0 || n > MAX_SCALE) return false
  let i = text.charCodeAt(0) === 45 ? 1 : 0
  const negative = i === 1
  const first = text.charCodeAt(i) // NaN past the end: fails the test
  if (!(first >= 48 && first <= 57)) return false
  let nonZero = first !== 48
  i++
  // A leading zero is the whole integer part: `0` or `0.5`, never `05`.
  if (!nonZero && i < n && text.charCodeAt(i) !== 46) return false
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 46) break
    if (c < 48 || c > 57) return false
    i++
  }
  if (i < n) {
    if (i + 1 === n) return false // `1.`: a point without a fraction
    for (let j = i + 1; j < n; j++) {
      const c = text.charCodeAt(j)
      if (c < 48 || c > 57) return false
      if (c !== 48) nonZero = true
    }
  }
  return nonZero || !negative
}

/**
 * The canonical form of a numeric value: plain decimal without trailing fraction zeros, so values
 * PostgreSQL considers equal (`1`, `'1.00'`, `1n`, `'1e0'`) share it. `'NaN'` and the infinities
 * (which the server can return) are kept as they are.
 */
export function canonicalNumeric(value: unknown): string {
  if (typeof value === 'string' && SPECIALS.has(value)) return value
  const text = numericText(value)
  if (!text.includes('.')) return text
  const trimmed = text.replace(/\.?0+$/, '')
  return trimmed === '-0' ? '0' : trimmed
}

/** Orders two canonical numerics the way PostgreSQL does: -Infinity < finite < Infinity < NaN. */
export function compareCanonicalNumerics(a: string, b: string): number {
  const ra = rank(a)
  const rb = rank(b)
  if (ra !== rb || ra !== 1) return Math.sign(ra - rb)
  const na = a.startsWith('-')
  const nb = b.startsWith('-')
  if (na !== nb) return na ? -1 : 1
  const c = compareMagnitudes(na ? a.slice(1) : a, nb ? b.slice(1) : b)
  return na ? -c : c
}

function rank(s: string): number {
  return s === '-Infinity' ? 0 : s === 'Infinity' ? 2 : s === 'NaN' ? 3 : 1
}

function compareMagnitudes(a: string, b: string): number {
  const [ai = '', af = ''] = a.split('.')
  const [bi = '', bf = ''] = b.split('.')
  if (ai.length !== bi.length) return ai.length < bi.length ? -1 : 1
  if (ai !== bi) return ai < bi ? -1 : 1
  const width = Math.max(af.length, bf.length)
  const fa = af.padEnd(width, '0')
  const fb = bf.padEnd(width, '0')
  return fa < fb ? -1 : fa > fb ? 1 : 0
}

const NUMERIC_OUTPUT = /^(-?\d+(\.\d+)?|NaN|-?Infinity)$/

/**
 * `text` (a {@link numericText}) checked against the column's `numeric(p,s)`, as the server checks
 * it: rounded half away from zero to the scale (what the server stores), it must have at most
 * `precision` digits, and be no infinity (`NaN` fits every numeric). The text sent is `text`: the
 * server rounds it.
 */
function fitNumeric(text: string, column: ColumnModel, value: unknown): string {
  const typmod = column.numericTypmod
  if (typmod === undefined || text === 'NaN') return text
  const { precision, scale } = typmod
  const fits = `numeric(${precision},${scale})`
  if (text === 'Infinity' || text === '-Infinity')
    problem(`${describeWritten(value)} cannot be stored in a ${fits} column (no infinity)`, value)
  const point = text.indexOf('.')
  const fraction = point < 0 ? '' : text.slice(point + 1)
  // A primary key's value is found again by the value given: one the server would round is no key
  // of a row it stores (an update or delete of the new row by it would find none).
  if (column.keyPart === true && scale >= 0 && fraction.length > scale && /[1-9]/.test(fraction.slice(scale)))
    problem(
      `${describeWritten(value)} has more decimal places than the key column's ${fits} keeps (${scale}): the server would store it rounded, and the row would not be found by the key given; give the key as it is stored`,
      value,
    )
  const digits = (point < 0 ? text : text.slice(0, point) + fraction).replace('-', '')
  // The value is digits x 10^-fraction.length; rounded to the scale: rounded x 10^-scale, whose
  // digits must be at most `precision`.
  const shift = scale - fraction.length
  let length: number
  if (shift >= 0) {
    // Nothing to round (the usual value: `'19.99'` in a `numeric(10,2)`): counted, not computed.
    let lead = 0
    while (lead < digits.length && digits.charCodeAt(lead) === 48) lead++
    length = lead === digits.length ? 0 : digits.length - lead + shift
  } else {
    const unit = 10n ** BigInt(-shift)
    const whole = BigInt(digits)
    let rounded = whole / unit
    if (2n * (whole % unit) >= unit) rounded += 1n
    length = rounded === 0n ? 0 : rounded.toString().length
  }
  if (length > precision) {
    const before = precision - scale
    problem(
      `${describeWritten(value)} does not fit a ${fits} column: ${before > 0 ? `at most ${before} digit${before === 1 ? '' : 's'} before the decimal point` : `its absolute value must be below 10^${before}`} once rounded to ${scale} decimal place${scale === 1 ? '' : 's'}`,
      value,
    )
  }
  return text
}

/**
 * `numeric`: written from a finite number, a bigint or a decimal string (`'NaN'`, `'Infinity'`,
 * `'-Infinity'` too); read as a string. A `numeric(p,s)` column refuses what does not fit it (see
 * {@link fitNumeric}); what it rounds, the server rounds.
 */
export const numericCodec: ScalarCodec = {
  encode: (value, column) => fitNumeric(numericText(value), column, value),
  decode(text) {
    if (!NUMERIC_OUTPUT.test(text)) problem(`cannot decode ${describeWritten(text)} as numeric`, text)
    return text
  },
  same: (a, b) => sameByCanonical(canonicalNumeric, a, b),
  key: canonicalNumeric,
  compareKeys: compareCanonicalNumerics,
}
