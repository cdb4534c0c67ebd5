import { errors } from '../errors.ts'
import { quoteCheckedLiteral, quoteStringLiteral } from '../values/sql-literal.ts'
import type { Param } from './driver.ts'

/**
 * `text` with each `$n` (where the server reads a parameter: see {@link parameterNumbers}) replaced
 * by parameter n as a SQL literal (`'...'`, or `null`), for the simple query protocol, where
 * statements carry no parameters (so a statement new to a connection costs no describe round trip).
 * pipeflush's SQL casts every parameter explicitly (`$1::text[]`), so the literal is typed as the
 * parameter would be.
 *
 * `checked`: the parameters' texts were validated already (a flush's, while planning): they are only
 * quoted, not scanned again for what no SQL text can carry.
 */
export function inlineParams(text: string, params: readonly Param[], checked = false): string {
  const quote = checked ? quoteCheckedLiteral : quoteStringLiteral
  const { pieces, numbers } = templateOf(text)
  let out = pieces[0]!
  for (let k = 0; k < numbers.length; k++) {
    const n = numbers[k]!
    if (n < 1 || n > params.length) {
      throw errors.internal('inlineParams', `the text has $${n} but ${params.length} parameters`)
    }
    const param = params[n - 1]
    out += (param === null || param === undefined ? 'null' : quote(param)) + pieces[k + 1]!
  }
  return out
}

/**
 * `text` with each `$n` (as {@link parameterNumbers} finds them) replaced by `literals[n - 1]`,
 * SQL constants made already (`'...'`, `null`): {@link inlineParams} for a caller that writes its
 * constants itself (a flush's, straight from its cells, without a parameter text in between).
 */
export function inlineLiterals(text: string, literals: readonly string[]): string {
  const { pieces, numbers } = templateOf(text)
  let out = pieces[0]!
  for (let k = 0; k < numbers.length; k++) {
    const n = numbers[k]!
    if (n < 1 || n > literals.length) {
      throw errors.internal('inlineParams', `the text has $${n} but ${literals.length} parameters`)
    }
    out += literals[n - 1]! + pieces[k + 1]!
  }
  return out
}

/** A text cut at its parameter references: `pieces[k]`, parameter `numbers[k]`, `pieces[k + 1]`... */
interface Template {
  readonly pieces: readonly string[]
  readonly numbers: readonly number[]
}

/** Texts cut before, a few thousand at most (pipeflush's statement texts are few per schema). */
const templates = new Map<string, Template>()
const MAX_TEMPLATES = 2_000

function templateOf(text: string): Template {
  let template = templates.get(text)
  if (template === undefined) {
    template = cut(text)
    if (templates.size >= MAX_TEMPLATES) templates.clear()
    templates.set(text, template)
  }
  return template
}

/**
 * The parameter numbers `text` refers to (`$1`...), in the order they occur, as the server reads them:
 * not in string constants (dollar-quoted ones too), quoted identifiers or comments.
 *
 * @example
 * parameterNumbers(`select $2::int, '$3', $1::text -- $4`) // [2, 1]
 */
export function parameterNumbers(text: string): readonly number[] {
  return templateOf(text).numbers
}

/**
 * Finds each `$n` as PostgreSQL's lexer does: outside string constants (`'...'`, `E'...'` with its
 * backslash escapes, `$tag$...$tag$`), quoted identifiers and comments (`--` to the end of the line,
 * and block comments, which nest), and not within an identifier (`a$1` is one).
 */
function cut(text: string): Template {
  const pieces: string[] = []
  const numbers: number[] = []
  let from = 0
  let i = 0
  while (i < text.length) {
    const ch = text.charCodeAt(i)
    if (ch === QUOTE) {
      i = closingQuote(text, i, ch, isEscapeString(text, i)) + 1
    } else if (ch === DOUBLE_QUOTE) {
      i = closingQuote(text, i, ch, false) + 1
    } else if (ch === DASH && text.charCodeAt(i + 1) === DASH) {
      const end = text.indexOf('\n', i + 2)
      i = end < 0 ? text.length : end + 1
    } else if (ch === SLASH && text.charCodeAt(i + 1) === STAR) {
      i = commentEnd(text, i)
    } else if (ch === DOLLAR && i > 0 && isIdentifierPart(text.charCodeAt(i - 1))) {
      i++
    } else if (ch === DOLLAR && isDigit(text.charCodeAt(i + 1))) {
      let j = i + 1
      while (isDigit(text.charCodeAt(j))) j++
      pieces.push(text.slice(from, i))
      numbers.push(Number(text.slice(i + 1, j)))
      from = i = j
    } else if (ch === DOLLAR) {
      i = dollarQuoteEnd(text, i)
    } else {
      i++
    }
  }
  pieces.push(text.slice(from))
  return { pieces, numbers }
}

const QUOTE = 39
const DOUBLE_QUOTE = 34
const DASH = 45
const SLASH = 47
const STAR = 42
const DOLLAR = 36
const BACKSLASH = 92

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57
}

/** A character that may start an identifier (or a dollar quote's tag). */
function isIdentifierStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c >= 128
}

/** A character that may continue an identifier (`$` among them). */
function isIdentifierPart(c: number): boolean {
  return isIdentifierStart(c) || isDigit(c) || c === DOLLAR
}

/** Whether the quote at `at` opens an escape string: `E'...'` (the E not ending a longer word). */
function isEscapeString(text: string, at: number): boolean {
  const e = text.charCodeAt(at - 1)
  return (e === 69 || e === 101) && (at < 2 || !isIdentifierPart(text.charCodeAt(at - 2)))
}

/**
 * The index of the quote closing the one at `start` (a doubled quote is part of the text; in an
 * escape string, so is a quote after a backslash).
 */
function closingQuote(text: string, start: number, quote: number, escapes: boolean): number {
  let i = start + 1
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (escapes && c === BACKSLASH) {
      i += 2
      continue
    }
    if (c === quote) {
      if (text.charCodeAt(i + 1) === quote) {
        i += 2
        continue
      }
      return i
    }
    i++
  }
  return text.length - 1
}

/** The index after the block comment opened at `start`, block comments nested in it included. */
function commentEnd(text: string, start: number): number {
  let depth = 0
  let i = start
  while (i < text.length) {
    if (text.charCodeAt(i) === SLASH && text.charCodeAt(i + 1) === STAR) {
      depth++
      i += 2
    } else if (text.charCodeAt(i) === STAR && text.charCodeAt(i + 1) === SLASH) {
      depth--
      i += 2
      if (depth === 0) return i
    } else {
      i++
    }
  }
  return text.length
}

/**
 * The index after the dollar-quoted string opened at `start` (`$$` or `$tag$`, up to the same
 * delimiter), or after the `$` alone when none opens there.
 */
function dollarQuoteEnd(text: string, start: number): number {
  let j = start + 1
  if (isIdentifierStart(text.charCodeAt(j))) {
    j++
    while (j < text.length && isIdentifierPart(text.charCodeAt(j)) && text.charCodeAt(j) !== DOLLAR) j++
  }
  if (text.charCodeAt(j) !== DOLLAR) return start + 1
  const delimiter = text.slice(start, j + 1)
  const end = text.indexOf(delimiter, j + 1)
  return end < 0 ? text.length : end + delimiter.length
}
