import type { Param, Row } from '../drivers/driver.ts'
import { parameterNumbers } from '../drivers/inline-params.ts'
import { errors } from '../errors.ts'
import type { TableModel } from '../model/model.ts'
import { perTable } from '../schema/per-table.ts'
import { describeWritten } from '../values/location.ts'
import { textProblem } from '../values/text.ts'
import type { ReadStatement } from './read-statement.ts'

/**
 * The application's own select (`select`, `loadRows`: `what` names the call in messages), checked
 * before it joins a batch: a text, and one parameter for each `$1..$n` it uses (as the server reads
 * them: not in string constants, quoted identifiers or comments), each a text or null; `params` left
 * out is none (a text holding a backslash is left to the server: see below). A bad one is
 * `INVALID_VALUE` and fails alone, nothing sent: in the batch it would fail
 * the reads sent with it (the server refuses a Bind with a wrong number of parameters, and a simple
 * protocol message has no literal to write for a parameter the list lacks).
 *
 * @example
 * ownStatement({ text: 'select $1::int as n', params: ['5'] }, 'select') // as given
 * ownStatement({ text: 'select $1::int as n', params: [] }, 'select')
 * // throws INVALID_VALUE: select: the text uses $1 but 0 parameters were given. Nothing was sent.
 */
export function ownStatement(statement: ReadStatement, what: string): ReadStatement {
  const given = statement as unknown
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    throw errors.invalidStatement(
      what,
      `the statement must be { text, params }, not ${describeWritten(given)}`,
    )
  const { text, params } = given as { text?: unknown; params?: unknown }
  if (typeof text !== 'string')
    throw errors.invalidStatement(what, `text must be a string, not ${describeWritten(text)}`)
  if (params !== undefined && !Array.isArray(params))
    throw errors.invalidStatement(what, `params must be an array of texts, not ${describeWritten(params)}`)
  const list: readonly unknown[] = params ?? []
  const textWhy = textProblem(text)
  if (textWhy !== undefined) throw errors.invalidStatement(what, `the text ${textWhy}`)
  for (let i = 0; i < list.length; i++) {
    const p = list[i]
    if (typeof p !== 'string' && p !== null)
      throw errors.invalidStatement(
        what,
        `params[${i}] must be a text or null, not ${describeWritten(p)}: a parameter is a value's ` +
          "PostgreSQL text form ('5', not 5), cast in the SQL as needed ($1::int)",
        { value: p },
      )
    // What no text the server stores can hold (a NUL, a lone surrogate): refused before it is sent.
    const why = p === null ? undefined : textProblem(p)
    if (why !== undefined) throw errors.invalidStatement(what, `params[${i}] ${why}`, { value: p })
  }
  // A backslash may end a string constant where the session has standard_conforming_strings off
  // (`'it\'s'`), which the text does not tell: such a text is left to the server.
  const why = backslashInString(text) ? undefined : parametersProblem(parameterNumbers(text), list.length)
  if (why !== undefined) throw errors.invalidStatement(what, why)
  return params === undefined ? { ...statement, params: [] as readonly Param[] } : statement
}

/**
 * Whether a string constant of `text` that is not an escape string (`E'...'`) holds a backslash: with
 * standard_conforming_strings off, the server reads it as an escape, which may end the constant
 * elsewhere than the text says. Errs towards true (a quote in a comment counts too).
 */
function backslashInString(text: string): boolean {
  if (!text.includes('\\')) return false
  for (let i = text.indexOf("'"); i >= 0; ) {
    let end = i + 1
    while (end < text.length && !(text[end] === "'" && text[end + 1] !== "'"))
      end += text[end] === "'" ? 2 : 1
    const escapeString = i > 0 && (text[i - 1] === 'E' || text[i - 1] === 'e')
    if (!escapeString && text.slice(i + 1, end).includes('\\')) return true
    i = text.indexOf("'", end + 1)
  }
  return false
}

/** What is wrong with a text using parameters `numbers` given `count` of them, or undefined. */
function parametersProblem(numbers: readonly number[], count: number): string | undefined {
  const given = `${count} parameter${count === 1 ? ' was' : 's were'} given`
  if (numbers.length === 0) return count === 0 ? undefined : `the text uses no parameters but ${given}`
  let highest = 0
  const used = new Set<number>()
  for (const n of numbers) {
    if (n < 1) return `the text uses $${n}: parameters are numbered from $1`
    if (n > highest) highest = n
    used.add(n)
  }
  const uses = highest === 1 ? '$1' : `$1..$${highest}`
  if (highest !== count) return `the text uses ${uses} but ${given}`
  for (let n = 1; n <= highest; n++)
    if (!used.has(n))
      return `the text uses ${uses} but does not use $${n} (the server cannot tell an unused parameter's type)`
  return undefined
}

/**
 * Checks that `rows`, selected by the application's SQL for `loadRows(table)`, hold every column of
 * `table` as `c0, c1...` (`INVALID_VALUE` naming those they lack, before any row is tracked): a
 * column left out would read as null. The first row is looked at, once per result: every row of a
 * result has the same fields.
 *
 * @example
 * checkSelectedColumns(actor, [{ c0: '30' }])
 * // throws INVALID_VALUE: loadRows(actor): the rows selected lack c1 (first_name), c2 (last_name)...
 */
export function checkSelectedColumns(table: TableModel, rows: readonly Row[]): void {
  const first = rows[0]
  if (first === undefined) return
  const names = selectedNames(table)
  const missing: string[] = []
  for (let i = 0; i < names.length; i++) {
    if (!(names[i]! in first)) missing.push(`${names[i]} (${table.columns[i]!.name})`)
  }
  if (missing.length > 0) throw errors.selectedColumnsMissing(table.key, missing.join(', '))
}

/** The names a table's columns are selected as: `c0, c1...` in table order (see `selectList`). */
const selectedNames = perTable((table) => table.columns.map((_, i) => `c${i}`))
