import { describeWritten, problem } from './location.ts'

/** ES2024's `String.prototype.isWellFormed` (Node 20 on), which the es2023 library does not declare. */
interface WellFormed {
  isWellFormed(): boolean
}

/**
 * Why `s` cannot be stored in a PostgreSQL text value (a NUL character or a lone UTF-16 surrogate,
 * which has no UTF-8 form), or undefined when it can.
 *
 * The server would refuse such a string mid-flush; found before sending, the error names the column.
 */
export function textProblem(s: string): string | undefined {
  // Native scans (ES2024's isWellFormed, then a NUL search) are much faster than a loop, and faster
  // than the regular expression; the loop names the index.
  if ((s as string & WellFormed).isWellFormed() && !s.includes('\u0000')) return undefined
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0) return `contains a NUL character (\\u0000) at index ${i}`
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++
        continue
      }
      return `contains a lone UTF-16 surrogate at index ${i}`
    }
  }
  return undefined
}

/** Throws a value problem unless `s` is storable text. */
export function checkText(s: string): void {
  const why = textProblem(s)
  if (why !== undefined) problem(`${describeWritten(s)} ${why}`, s)
}

/**
 * Length in code points, the way PostgreSQL counts characters for `varchar(n)` and `char(n)` (a
 * surrogate pair is one character).
 *
 * A length checked before sending must be counted as the server counts it.
 */
export function codePointLength(s: string): number {
  let n = s.length
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--
        i++
      }
    }
  }
  return n
}

/** Drops trailing spaces: `char(n)` values compare equal whatever their padding. */
export function trimPadding(s: string): string {
  let end = s.length
  while (end > 0 && s.charCodeAt(end - 1) === 32) end--
  return end === s.length ? s : s.slice(0, end)
}

/** -1, 0 or 1 by UTF-16 code units (a deterministic order, not a collation). */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
