import { errors } from '../errors.ts'
import { quoteCheckedLiteral, quoteStringLiteral } from '../values/sql-literal.ts'
import type { Param } from './driver.ts'

/**
 * `text` with each `$n` outside quoted identifiers and string literals replaced by parameter n as a
 * SQL literal (`'...'`, or `null`), for the simple query protocol, where statements carry no
 * parameters (so a statement new to a connection costs no describe round trip). pipeflush's SQL casts
 * every parameter explicitly (`$1::text[]`), so the literal is typed as the parameter would be.
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
 * `text` with each `$n` outside quoted identifiers and string literals replaced by `literals[n - 1]`,
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

/** Finds each `$n` outside quoted identifiers and string literals. */
function cut(text: string): Template {
  const pieces: string[] = []
  const numbers: number[] = []
  let from = 0
  let i = 0
  while (i < text.length) {
    const ch = text.charCodeAt(i)
    if (ch === 34 || ch === 39) {
      i = closingQuote(text, i, ch) + 1
    } else if (ch === 36 && isDigit(text.charCodeAt(i + 1))) {
      let j = i + 1
      while (isDigit(text.charCodeAt(j))) j++
      pieces.push(text.slice(from, i))
      numbers.push(Number(text.slice(i + 1, j)))
      from = i = j
    } else {
      i++
    }
  }
  pieces.push(text.slice(from))
  return { pieces, numbers }
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57
}

/** The index of the quote closing the one at `start` (a doubled quote is part of the text). */
function closingQuote(text: string, start: number, quote: number): number {
  let i = start + 1
  while (i < text.length) {
    if (text.charCodeAt(i) === quote) {
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
