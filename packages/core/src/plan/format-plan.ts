import { statementForm } from './statements/statement-sql.ts'
import type { FlushPlan, PlannedStatement } from './types.ts'

/** How many elements of each parameter {@link formatPlan} shows. */
const SHOWN_ELEMENTS = 3
/** How many characters of each element it shows. */
const SHOWN_CHARACTERS = 40

/** Every statement of a plan, wave after wave: a valid order to run them one after another. */
export function planStatements(plan: FlushPlan): PlannedStatement[] {
  // A loop, not `waves.flat()`: every flush lists its statements, and `flat` is the slower of the two.
  const { waves } = plan
  if (waves.length === 1) return waves[0]!.slice()
  const out: PlannedStatement[] = []
  for (let w = 0; w < waves.length; w++) {
    const wave = waves[w]!
    for (let i = 0; i < wave.length; i++) out.push(wave[i]!)
  }
  return out
}

function formatElement(element: string | null): string {
  if (element === null) return 'NULL'
  const shown = element.length > SHOWN_CHARACTERS ? `${element.slice(0, SHOWN_CHARACTERS)}…` : element
  return JSON.stringify(shown)
}

function formatParam(param: readonly (string | null)[], index: number, oneRow: boolean): string {
  if (oneRow) return `$${index + 1} = ${formatElement(param[0] ?? null)}`
  const shown = param.slice(0, SHOWN_ELEMENTS).map(formatElement)
  if (param.length > SHOWN_ELEMENTS) shown.push(`… ${param.length - SHOWN_ELEMENTS} more`)
  return `$${index + 1} = [${shown.join(', ')}]`
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`
}

function formatStatement(statement: PlannedStatement, number: number): string[] {
  const label = statement.fixup ? `${statement.kind} (fix-up)` : statement.kind
  const columns = statement.columns.length > 0 ? ` [${statement.columns.join(', ')}]` : ''
  return [
    `  ${number}. ${label} ${statement.table}${columns}: ${plural(statement.rowCount, 'row')}`,
    `     ${statement.sql}`,
    ...statement.params.map(
      (param, i) => `     ${formatParam(param, i, statementForm(statement) === 'row')}`,
    ),
  ]
}

/**
 * A readable, multi-line description of a plan: waves, then each statement's kind, table, columns, row
 * count, SQL and parameters (the first elements of each).
 *
 * @example
 * console.log(formatPlan(em.plan()))
 * // Flush plan: 2 statements in 2 waves
 * // wave 1
 * //   1. insert author [id, name]: 1 row
 * //      insert into "public"."author" ("id", "name") values ($1::text::int8, $2::text::text)
 * //      $1 = "1"
 * //      $2 = "Ann"
 * // wave 2
 * //   ...
 */
export function formatPlan(plan: FlushPlan): string {
  const count = planStatements(plan).length
  if (count === 0) return 'Flush plan: nothing to write'
  const lines = [`Flush plan: ${plural(count, 'statement')} in ${plural(plan.waves.length, 'wave')}`]
  let number = 0
  plan.waves.forEach((wave, i) => {
    lines.push(`wave ${i + 1}`)
    for (const statement of wave) lines.push(...formatStatement(statement, ++number))
  })
  return lines.join('\n')
}
