/**
 * PostgreSQL array literals (`{"a","b",NULL}`) of one dimension, the form every array value and
 * every `text[]` parameter travels in.
 */

const NEEDS_ESCAPE = /["\\]/g

/** The element quoted, `"` and `\` backslash-escaped (the replace only where one occurs). */
function quoteElement(e: string): string {
  return e.indexOf('"') === -1 && e.indexOf('\\') === -1 ? `"${e}"` : `"${e.replace(NEEDS_ESCAPE, '\\$&')}"`
}

/**
 * The array literal of already-encoded element texts: every non-null element double-quoted with `"`
 * and `\` backslash-escaped, `NULL` for null, `{}` when empty.
 *
 * pipeflush sends every value as text: this is the text form of an array.
 */
export function arrayLiteral(elements: readonly (string | null)[]): string {
  return delimitedArrayLiteral(elements, ',')
}

/**
 * {@link arrayLiteral} with the element type's delimiter: a comma but for `box`, whose elements hold
 * commas and are separated by `;`.
 */
export function delimitedArrayLiteral(elements: readonly (string | null)[], delimiter: string): string {
  let out = '{'
  for (let i = 0; i < elements.length; i++) {
    const e = elements[i]
    if (i > 0) out += delimiter
    out += e === null || e === undefined ? 'NULL' : quoteElement(e)
  }
  return `${out}}`
}

const BOUNDS = /^\[-?\d+:-?\d+\]=/

/**
 * The element texts of a one-dimensional array literal as the server prints it: quoted elements with
 * backslash escapes, unquoted elements, `NULL`, `{}` and explicit bounds (`[0:1]={1,2}`, whose bounds
 * are dropped), elements separated by `delimiter` (`;` for `box[]`). Returns a string describing the
 * problem for anything else, multi-dimensional arrays included.
 *
 * Reads decode every column from its text: arrays come as this literal, whatever the client's parsers.
 */
export function parseArrayLiteral(text: string, delimiter = ','): (string | null)[] | string {
  let i = 0
  const bounds = BOUNDS.exec(text)
  if (bounds !== null) i = bounds[0].length
  else if (text.startsWith('[')) return 'multi-dimensional arrays are not supported'
  if (text[i] !== '{') return 'an array literal starts with {'
  i++
  const out: (string | null)[] = []
  if (text[i] === '}') return i + 1 === text.length ? out : 'unexpected text after }'
  for (;;) {
    while (text[i] === ' ') i++
    const c = text[i]
    if (c === '{') return 'multi-dimensional arrays are not supported'
    if (c === '"') {
      let value = ''
      let start = ++i
      for (;;) {
        const q = text.charCodeAt(i)
        if (Number.isNaN(q)) return 'unterminated quoted element'
        if (q === 34) break
        if (q === 92) {
          if (i + 1 >= text.length) return 'unterminated quoted element'
          value += text.slice(start, i)
          start = i + 1
          i += 2
        } else {
          i++
        }
      }
      out.push(value + text.slice(start, i))
      i++
    } else {
      let value = ''
      let escaped = false
      for (;;) {
        const u = text[i]
        if (u === undefined) return 'unterminated array literal'
        if (u === delimiter || u === '}') break
        if (u === '"' || u === '{') return `unexpected ${u} in an unquoted element`
        if (u === '\\') {
          i++
          const next = text[i]
          if (next === undefined) return 'unterminated array literal'
          value += next
          escaped = true
        } else {
          value += u
        }
        i++
      }
      value = value.replace(/^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g, '') // PostgreSQL's white space only, not U+00A0 etc.
      if (value === '' && !escaped) return 'empty unquoted element'
      out.push(!escaped && value.toUpperCase() === 'NULL' ? null : value)
    }
    while (text[i] === ' ') i++
    const sep = text[i]
    i++
    if (sep === '}') return i === text.length ? out : 'unexpected text after }'
    if (sep !== delimiter) return `expected ${delimiter} or } after an element`
  }
}
