import type { ColumnModel } from '../model/model.ts'
import type { ScalarCodec } from './codec.ts'
import { describeWritten, problem } from './location.ts'
import { checkText, codePointLength, compareCodeUnits, trimPadding } from './text.ts'

function checkString(value: unknown, type: string): string {
  if (typeof value !== 'string')
    problem(`expected a string for ${type}, got ${describeWritten(value)}`, value)
  checkText(value)
  return value
}

/**
 * `s` as a `varchar(n)`/`char(n)` column stores it: PostgreSQL's assignment drops the characters past
 * the n-th when they are all spaces (`'abc  '` in a `varchar(3)` is `'abc'`), and refuses the value
 * otherwise; so does this (INVALID_VALUE).
 */
function checkLength(s: string, column: ColumnModel, type: string): string {
  const fitted = fitLength(s, column)
  if (fitted === undefined) {
    problem(
      `${describeWritten(s)} is ${codePointLength(s)} characters long, more than ${type}(${column.maxLength}) allows`,
      s,
    )
  }
  return fitted
}

/**
 * `s` without the spaces past `column.maxLength` characters, as the column stores it; undefined when a
 * character past it is not a space. A space is one UTF-16 unit: the excess, if all spaces, is as many
 * units at the end.
 */
function fitLength(s: string, column: ColumnModel): string | undefined {
  const max = column.maxLength
  if (max === undefined || s.length <= max) return s
  const excess = codePointLength(s) - max
  if (excess <= 0) return s
  for (let i = s.length - excess; i < s.length; i++) if (s.charCodeAt(i) !== 32) return undefined
  return s.slice(0, s.length - excess)
}

/**
 * A string key value of `column` as the column stores it: spaces past a `varchar(n)`/`char(n)`'s length
 * dropped, a uuid in its canonical form; anything else as it is. What a reference to that key writes,
 * whatever the referencing column (a wider `varchar`, a `text` without a foreign key).
 *
 * @example
 * storedKeyText('ab   ', varchar3) // 'ab '
 */
export function storedKeyText(value: unknown, column: ColumnModel): unknown {
  if (typeof value !== 'string' || column.isArray) return value
  if (column.type === 'uuid') return canonicalUuid(value) ?? value
  if (column.type === 'varchar' || column.type === 'bpchar') return fitLength(value, column) ?? value
  return value
}

/** `varchar(n)` strings equal as the column stores them (see {@link fitLength}). */
function sameFitted(a: unknown, b: unknown, column: ColumnModel): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return false
  return a === b || (fitLength(a, column) ?? a) === (fitLength(b, column) ?? b)
}

const same = (a: unknown, b: unknown): boolean => typeof a === 'string' && a === b

/** `text`: a string without NUL characters or lone surrogates. */
export const textCodec: ScalarCodec = {
  encode: (value) => checkString(value, 'text'),
  decode: (text) => text,
  same,
  key: (value) => checkString(value, 'text'),
  compareKeys: compareCodeUnits,
}

/**
 * `varchar(n)`: a text string of at most `n` characters (code points, as PostgreSQL counts), spaces
 * past them dropped as the server drops them: written, compared and keyed as stored.
 */
export const varcharCodec: ScalarCodec = {
  encode: (value, column) => checkLength(checkString(value, 'varchar'), column, 'varchar'),
  decode: (text) => text,
  same: sameFitted,
  key: (value, column) => {
    const s = checkString(value, 'varchar')
    return fitLength(s, column) ?? s
  },
  compareKeys: compareCodeUnits,
}

/**
 * `char(n)`: a text string of at most `n` characters. Trailing spaces are insignificant in `char(n)`,
 * and the server is not consistent about them (`col::text` strips the padding, array output keeps it),
 * so reads drop trailing spaces (`'ab'` in a `char(4)` reads `'ab'`), and equality and keys ignore them.
 * Spaces past `n` characters are dropped, as the server drops them (`'ab '` in a `char(2)`).
 */
export const bpcharCodec: ScalarCodec = {
  encode: (value, column) => checkLength(checkString(value, 'char'), column, 'char'),
  decode: trimPadding,
  same: (a, b) => typeof a === 'string' && typeof b === 'string' && trimPadding(a) === trimPadding(b),
  key: (value) => trimPadding(checkString(value, 'char')),
  compareKeys: compareCodeUnits,
}

function checkLabel(value: unknown, column: ColumnModel): string {
  const s = checkString(value, column.sqlType)
  const labels = column.enumLabels
  if (labels !== undefined && !labels.includes(s)) {
    const shown = labels.length > 10 ? `${labels.slice(0, 10).join(', ')}, ...` : labels.join(', ')
    problem(`${describeWritten(s)} is not a label of ${column.sqlType.replace(/\[\]$/, '')} (${shown})`, s)
  }
  return s
}

/** An enum: one of `column.enumLabels`. Keys order by label position, as PostgreSQL sorts enums. */
export const enumCodec: ScalarCodec = {
  encode: checkLabel,
  decode: (text) => text,
  same,
  key: checkLabel,
  compareKeys(a, b, column) {
    const labels = column.enumLabels ?? []
    const ia = labels.indexOf(a)
    const ib = labels.indexOf(b)
    return ia === -1 || ib === -1 ? compareCodeUnits(a, b) : Math.sign(ia - ib)
  },
}

/** The canonical form the server prints, and reads give. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * What the server's uuid input reads: 32 hex digits, any case, a hyphen allowed after any group of
 * four (`a0eebc99-9c0b-...`, `a0eebc999c0b...`, `a0ee-bc99-...`), the whole optionally in braces.
 */
const UUID_INPUT = /^(?:\{[0-9a-f]{4}(?:-?[0-9a-f]{4}){7}\}|[0-9a-f]{4}(?:-?[0-9a-f]{4}){7})$/i

/** `value` in the canonical 8-4-4-4-12 lowercase form; undefined when the server would not read it. */
function canonicalUuid(value: string): string | undefined {
  if (UUID.test(value)) return value
  if (!UUID_INPUT.test(value)) return undefined
  const hex = value.replace(/[{}-]/g, '').toLowerCase()
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

function uuidText(value: unknown): string {
  if (typeof value !== 'string') problem(`expected a string for uuid, got ${describeWritten(value)}`, value)
  const canonical = canonicalUuid(value)
  if (canonical === undefined) problem(`${describeWritten(value)} is not a valid uuid`, value)
  return canonical
}

/**
 * `uuid`: a string of any form the server reads (any case, braces, hyphens after any group of four
 * digits or none), written, compared and keyed in the canonical lowercase 8-4-4-4-12 form, which reads
 * give. Keys order like the server (by bytes).
 */
export const uuidCodec: ScalarCodec = {
  encode: uuidText,
  decode(text) {
    const canonical = canonicalUuid(text)
    if (canonical === undefined) problem(`cannot decode ${describeWritten(text)} as uuid`, text)
    return canonical
  },
  same: (a, b) =>
    typeof a === 'string' &&
    typeof b === 'string' &&
    (a === b || (canonicalUuid(a) ?? a.toLowerCase()) === (canonicalUuid(b) ?? b.toLowerCase())),
  key: uuidText,
  compareKeys: compareCodeUnits,
}

function boolText(value: unknown): string {
  if (typeof value !== 'boolean') problem(`expected a boolean for bool, got ${describeWritten(value)}`, value)
  return value ? 't' : 'f'
}

/** `bool`: a JS boolean, written `t`/`f`; reads accept both `t`/`f` (arrays) and `true`/`false` (`::text`). */
export const boolCodec: ScalarCodec = {
  encode: boolText,
  decode(text) {
    if (text === 't' || text === 'true') return true
    if (text === 'f' || text === 'false') return false
    return problem(`cannot decode ${describeWritten(text)} as bool`, text)
  },
  same: (a, b) => typeof a === 'boolean' && a === b,
  key: boolText,
  compareKeys: compareCodeUnits,
}
