import type { ColumnModel } from '../model/model.ts'
import type { ScalarCodec } from './codec.ts'
import { describeWritten, problem } from './location.ts'
import { checkText, compareCodeUnits } from './text.ts'
import { checkTimestampText, timestampTextKey } from './timestamp.ts'

function textForm(value: unknown, column: ColumnModel): string {
  if (typeof value !== 'string') {
    problem(
      `expected a string (the text form of ${column.castType ?? column.sqlType}), got ${describeWritten(value)}`,
      value,
    )
  }
  checkText(value)
  // A timestamp declared `text: true` (Drizzle's `mode: 'string'`): its text checked where it can be.
  const type = column.castType
  if (type === 'timestamp' || type === 'timestamptz') checkTimestampText(value)
  else if (type === '"char"') checkOneByteChar(value)
  else if (type === 'name') checkName(value)
  return value
}

/** A byte past ASCII as the server writes a `"char"` holding one, and reads it back: `\303`. */
const OCTAL_BYTE = /^\\[0-3][0-7]{2}$/

/**
 * A `"char"` holds one byte: the server keeps the first byte of what it is given and drops the rest
 * without a word (`'ab'` is stored `'a'`, an `'é'` half of its UTF-8). One ASCII character, none, or
 * a byte in the form the server reads it back (`\303`).
 */
function checkOneByteChar(value: string): void {
  if (value.length > 1 ? !OCTAL_BYTE.test(value) : value.length === 1 && value.charCodeAt(0) > 0x7f)
    problem(
      `${describeWritten(value)} does not fit a "char", which holds one byte: one ASCII character, none, or a byte as the server writes it (\\ooo); the server would keep its first byte only`,
      value,
    )
}

/** The most bytes a `name` holds (NAMEDATALEN - 1); the server cuts a longer one without a word. */
const NAME_BYTES = 63

function checkName(value: string): void {
  const bytes = Buffer.byteLength(value, 'utf8')
  if (bytes > NAME_BYTES)
    problem(
      `${describeWritten(value)} is ${bytes} bytes in UTF-8, and a name holds at most ${NAME_BYTES} (the server would cut it)`,
      value,
    )
}

const HOST_MASK = /^([^/]*)\/(\d+)$/

/**
 * `inet`'s output omits the netmask of a single host (`/32`, `/128`), but its cast to text (what reads
 * select) always adds it: drop it again, so that scalars read like array elements and like every
 * driver prints them.
 */
function inetText(text: string): string {
  const m = HOST_MASK.exec(text)
  if (m === null) return text
  const [, address = '', bits] = m
  return bits === (address.includes(':') ? '128' : '32') ? address : text
}

/** Whether `column` is of the `citext` extension's type (in any schema; a domain over it too). */
function isCitext(column: ColumnModel): boolean {
  const type = column.castType ?? column.sqlType
  return type === 'citext' || type.endsWith('.citext') || type.endsWith('."citext"')
}

/**
 * The key form of a text-form value: its text; a timestamp's the instant or wall clock it stands for
 * (see `timestampTextKey`); an `inet`'s without a single host's netmask (`'10.0.0.1/32'` is the key
 * `'10.0.0.1'`, as it reads); a `citext`'s with its ASCII letters lowercased, as the
 * server compares them (`'POETRY'` is the key `'Poetry'`: a child holding it references that row,
 * and `load` by it finds it). Other letters are left as they are: whether the server folds them
 * depends on the database's locale (under `C` it does not), and two rows it tells apart must not be
 * taken for one.
 */
function keyForm(value: unknown, column: ColumnModel): string {
  const text = textForm(value, column)
  const type = column.castType
  if (type === 'timestamptz' || type === 'timestamp')
    return timestampTextKey(text, type === 'timestamptz') ?? text
  // A single host's address with its netmask (`'10.0.0.1/32'`) is the address, as the server prints it.
  if (type === 'inet') return inetText(text)
  return isCitext(column) ? text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase()) : text
}

/**
 * Any other type with a text input (inet, interval, ranges, tsvector, citext, domains over them...):
 * values are strings in the form the type's input function reads, validated by the server; reads are
 * the server's text output, which may be a canonical form of what was written (`'10.0.0.1/32'` reads
 * `'10.0.0.1'`). Equality compares the text (a citext's other case is a change to write); keys too,
 * but a citext's ignore its case, as the server's `=` does.
 */
export const otherCodec: ScalarCodec = {
  encode: textForm,
  decode: (text, column) => (column.castType === 'inet' ? inetText(text) : text),
  same: (a, b) => typeof a === 'string' && a === b,
  key: keyForm,
  compareKeys: compareCodeUnits,
}
