import type postgres from 'postgres'
import type { PlannedStatement } from '../plan/types.ts'
import { classifyStatementError } from './classify-error.ts'
import { inlineParams } from './simple-sql.ts'

/** Statements joined into one simple-protocol query string. */
export interface Batch {
  readonly text: string
  /** Each statement's text, in order. */
  readonly texts: readonly string[]
  readonly statements: readonly PlannedStatement[]
  /** Characters before the first statement (a BEGIN, say). */
  readonly prefix: string
}

const SEPARATOR = ';\n'

/**
 * One query string holding `statements` with their parameters as literals, between `prefix` and
 * `suffix` (e.g. `begin;` and `commit`). A multi-statement simple query stops at the first failing
 * statement; inside an explicit transaction the transaction is then aborted.
 */
export function batch(statements: readonly PlannedStatement[], prefix = '', suffix = ''): Batch {
  const texts = statements.map((s) => inlineParams(s))
  const head = prefix === '' ? '' : `${prefix}${SEPARATOR}`
  const tail = suffix === '' ? '' : `${texts.length > 0 ? SEPARATOR : ''}${suffix}`
  return { text: `${head}${texts.join(SEPARATOR)}${tail}`, texts, statements, prefix: head }
}

/** Number of Unicode code points of `s` (PostgreSQL's error positions count characters). */
function codePoints(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0xd800 || c > 0xdbff) n++
    else {
      n++
      i++
    }
  }
  return n
}

/**
 * The statement of `b` an error of its query points at: by the error's character position, else by
 * the table the server named. Undefined for the prefix, the suffix or when nothing matches.
 */
export function statementAt(error: unknown, b: Batch): PlannedStatement | undefined {
  const position = Number((error as { position?: unknown } | null)?.position)
  if (Number.isFinite(position) && position > 0) {
    let end = codePoints(b.prefix)
    if (position <= end) return undefined
    for (let i = 0; i < b.texts.length; i++) {
      end += codePoints(b.texts[i] ?? '') + SEPARATOR.length
      if (position <= end) return b.statements[i]
    }
    return undefined
  }
  const table = (error as { table_name?: unknown; schema_name?: unknown } | null)?.table_name
  if (typeof table !== 'string') return undefined
  return b.statements.find((s) => s.table === table || s.table.endsWith(`.${table}`))
}

/**
 * Runs `statements` as one simple-protocol query (one round trip, nothing prepared), throwing the
 * failing statement's error as a `PipeflushError`.
 */
export async function simpleBatch(
  sql: Pick<postgres.Sql, 'unsafe'>,
  statements: readonly PlannedStatement[],
  flushId: string,
): Promise<void> {
  const b = batch(statements)
  try {
    await sql.unsafe(b.text)
  } catch (e) {
    throw classifyStatementError(e, statementAt(e, b), flushId)
  }
}
