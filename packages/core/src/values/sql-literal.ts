import { errors } from '../errors.ts'
import { arrayLiteral } from './array-literal.ts'
import { describeWritten } from './location.ts'
import { textProblem } from './text.ts'

/**
 * A SQL string constant holding `s`, safe whatever `standard_conforming_strings` is: `'...'` with `'`
 * doubled when `s` has no backslash, else an escape string `E'...'` with `\` doubled too. Rejects NUL
 * characters and lone surrogates (`INVALID_VALUE`), which no SQL text can carry, and anything but a
 * string (a caller without types: a number is not quoted as its text).
 *
 * @example
 * quoteStringLiteral('a\\b') // "E'a\\\\b'"
 */
export function quoteStringLiteral(s: string): string {
  if (typeof s !== 'string') throw errors.invalidSqlLiteral(`must hold a text, not ${describeWritten(s)}`)
  const why = textProblem(s)
  if (why !== undefined) throw errors.invalidSqlLiteral(why)
  return quoteCheckedLiteral(s)
}

/**
 * {@link quoteStringLiteral} of a text already checked (a flush's encoded values, validated while
 * planning, in the array literals built of them): quoted only.
 *
 * @example
 * quoteCheckedLiteral("it's") // "'it''s'"
 */
export function quoteCheckedLiteral(s: string): string {
  const quoted = s.includes("'") ? s.replace(/'/g, "''") : s
  return s.includes('\\') ? `E'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`
}

/**
 * The SQL constant of a `text[]` holding already-encoded element texts (null for SQL NULL), for the
 * simple-query path where statements carry no parameters: the same array literal as
 * {@link textArrayParam}, quoted by {@link quoteStringLiteral} and cast.
 */
export function quoteTextArrayLiteral(elements: readonly (string | null)[]): string {
  return `${quoteStringLiteral(arrayLiteral(elements))}::text[]`
}

/**
 * `quoteCheckedLiteral(arrayLiteral(elements))`, the SQL constant of a `text[]` of checked texts,
 * written in one pass when no element holds a character either step escapes (`'`, `"`, `\`): the
 * usual cell, whose array literal and its quoted copy were two strings of the same length.
 *
 * @example
 * quotedArrayLiteral(['a', null]) // `'{"a",NULL}'`
 */
export function quotedArrayLiteral(elements: readonly (string | null)[]): string {
  let out = "'{"
  for (let i = 0; i < elements.length; i++) {
    const e = elements[i]
    if (e === null || e === undefined) {
      out += i === 0 ? 'NULL' : ',NULL'
      continue
    }
    if (e.includes("'") || e.includes('"') || e.includes('\\'))
      return quoteCheckedLiteral(arrayLiteral(elements))
    out += i === 0 ? `"${e}"` : `,"${e}"`
  }
  return `${out}}'`
}
