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

function checkLength(s: string, column: ColumnModel, type: string): string {
  if (column.maxLength !== undefined) {
    const length = codePointLength(s)
    if (length > column.maxLength) {
      problem(
        `${describeWritten(s)} is ${length} characters long, more than ${type}(${column.maxLength}) allows`,
        s,
      )
    }
  }
  return s
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

/** `varchar(n)`: a text string of at most `n` characters (code points, as PostgreSQL counts). */
export const varcharCodec: ScalarCodec = {
  encode: (value, column) => checkLength(checkString(value, 'varchar'), column, 'varchar'),
  decode: (text) => text,
  same,
  key: (value) => checkString(value, 'varchar'),
  compareKeys: compareCodeUnits,
}

/**
 * `char(n)`: a text string of at most `n` characters. Trailing spaces are insignificant in `char(n)`,
 * and the server is not consistent about them (`col::text` strips the padding, array output keeps it),
 * so reads drop trailing spaces (`'ab'` in a `char(4)` reads `'ab'`), and equality and keys ignore them.
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

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

function uuidText(value: unknown): string {
  if (typeof value !== 'string') problem(`expected a string for uuid, got ${describeWritten(value)}`, value)
  if (!UUID.test(value)) problem(`${describeWritten(value)} is not a valid uuid`, value)
  return value.toLowerCase()
}

/**
 * `uuid`: a string in the canonical 8-4-4-4-12 hex form, any case on write; reads are lowercase.
 * Keys order like the server (by bytes).
 */
export const uuidCodec: ScalarCodec = {
  encode: uuidText,
  decode(text) {
    if (!UUID.test(text)) problem(`cannot decode ${describeWritten(text)} as uuid`, text)
    return text.toLowerCase()
  },
  same: (a, b) => typeof a === 'string' && typeof b === 'string' && a.toLowerCase() === b.toLowerCase(),
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
