import { statementName } from '../connection/statement-name.ts'
import type { Param, PipelinedStatement } from '../drivers/driver.ts'
import { inlineLiterals } from '../drivers/inline-params.ts'
import { errors } from '../errors.ts'
import type { SchemaModel } from '../model/model.ts'
import { parseStaleError, type StaleRows } from '../plan/statements/stale-check.ts'
import { statementForm } from '../plan/statements/statement-sql.ts'
import type { PlannedStatement } from '../plan/types.ts'
import { arrayLiteral } from '../values/array-literal.ts'
import { quoteCheckedLiteral, quotedArrayLiteral } from '../values/sql-literal.ts'
import { copyData } from './copy-data.ts'
import { deferredForeignKey, type RejectionFacts, rejectedStatement } from './failed-statement.ts'

/** The text that separates statements of one simple-protocol message. */
export const SEPARATOR = ';\n'

/**
 * The parameters of a planned statement: one `text[]` array literal per column, or for a statement of
 * one row (form `row`, see `statementForm`) the row's texts themselves.
 */
export function statementParams(statement: Pick<PlannedStatement, 'params' | 'rowCount'>): Param[] {
  if (statementForm(statement) === 'row') return statement.params.map((p) => p[0] ?? null)
  return statement.params.map((p) => arrayLiteral(p))
}

/**
 * A planned statement for the simple query protocol: its parameters written as literals. The values
 * were validated while planning (no NUL characters, no lone surrogates), so the array literals only
 * need their quotes doubled.
 */
export function simpleText(
  statement: Pick<PlannedStatement, 'sql' | 'params' | 'rowCount' | 'copy'>,
): string {
  return statement.copy ? statement.sql : inlineLiterals(statement.sql, statementLiterals(statement))
}

/**
 * The parameters of a planned statement as SQL constants: `inlineParams(sql, statementParams(s),
 * true)`'s, written from the cells directly (no array literal first, then its quoted copy).
 */
function statementLiterals(statement: Pick<PlannedStatement, 'params' | 'rowCount'>): string[] {
  const { params } = statement
  const row = statementForm(statement) === 'row'
  const out = new Array<string>(params.length)
  for (let p = 0; p < params.length; p++) {
    const cells = params[p]!
    if (!row) out[p] = quotedArrayLiteral(cells)
    else {
      const text = cells[0]
      out[p] = text === null || text === undefined ? 'null' : quoteCheckedLiteral(text)
    }
  }
  return out
}

/** A planned statement for a pipeline: named (prepared once per connection) when `named`. */
export function pipelined(statement: PlannedStatement, named: boolean): PipelinedStatement {
  if (statement.copy) throw errors.internal('pipelined', 'a COPY goes in a simple-protocol message')
  return {
    text: statement.sql,
    params: statementParams(statement),
    name: named ? statementName(statement.sql) : undefined,
  }
}

/** Statements joined into one simple-protocol message, with where each starts (for error positions). */
export interface SimpleBatch {
  readonly text: string
  /** Each statement's text, in order. */
  readonly texts: readonly string[]
  /** The planned statement of each text; undefined for texts pipeflush adds (flush log, BEGIN...). */
  readonly statements: readonly (PlannedStatement | undefined)[]
  /** The data of each COPY of the message (`statement.copy`), in order, in chunks (see `copyData`). */
  readonly copies: readonly Iterable<Buffer>[]
}

/** Whether any of `statements` goes as COPY (then only a simple-protocol message can carry it). */
export function hasCopy(statements: readonly PlannedStatement[]): boolean {
  return statements.some((s) => s.copy === true)
}

const NONE_WRITTEN: ReadonlyMap<PlannedStatement, Iterable<Buffer>> = new Map()

/**
 * One message of `parts`: planned statements (their parameters inlined) and plain texts. The data of
 * a COPY statement is made of its parameters, unless `written` holds it (see `CompletedPlan.copies`).
 *
 * One Query message is one round trip, however many statements it holds.
 */
export function simpleBatch(
  parts: readonly (PlannedStatement | string)[],
  written: ReadonlyMap<PlannedStatement, Iterable<Buffer>> = NONE_WRITTEN,
): SimpleBatch {
  const texts = parts.map((p) => (typeof p === 'string' ? p : simpleText(p)))
  const copies: Iterable<Buffer>[] = []
  for (const p of parts) if (typeof p !== 'string' && p.copy) copies.push(written.get(p) ?? copyData(p))
  return {
    text: texts.join(SEPARATOR),
    texts,
    statements: parts.map((p) => (typeof p === 'string' ? undefined : p)),
    copies,
  }
}

/** Number of Unicode code points of `s` (PostgreSQL's error positions count characters). */
function codePoints(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    n++
    if (c >= 0xd800 && c <= 0xdbff) i++
  }
  return n
}

/**
 * The statement of `batch` an error of its message is about: by the error's character position, else
 * the one after the statements the server completed before it (where the driver counts them), else
 * by what the server named (its table, and the key or column: see `rejectedStatement`, which `schema`
 * helps tell a foreign key's referenced table). Undefined when nothing matches.
 */
export function statementAt(
  batch: SimpleBatch,
  error: RejectionFacts & {
    readonly position?: number | undefined
    readonly completed?: number | undefined
    readonly message?: string
  },
  schema?: SchemaModel,
): PlannedStatement | undefined {
  // A row changed or gone: the update or delete on its table whose rows hold its key.
  const stale = parseStaleError({ code: error.sqlState, message: error.message })
  if (stale !== null) return staleStatement(batch.statements, stale)
  // A character the database's encoding lacks: the server converts a message whole before running
  // any of it, so no statement completed, whichever holds the character.
  const character = untranslatable(error)
  if (character !== undefined) {
    const i = batch.texts.findIndex((text) => text.includes(character))
    if (i >= 0) return batch.statements[i]
  }
  const { position, completed } = error
  if (position !== undefined) {
    let end = 0
    for (let i = 0; i < batch.texts.length; i++) {
      end += codePoints(batch.texts[i] ?? '') + SEPARATOR.length
      if (position <= end) return batch.statements[i]
    }
    return undefined
  }
  // The statement after those the server completed (none of the batch's when all completed: the
  // error came as the transaction ended, a deferred constraint's, which names its table). The end of
  // a message's implicit transaction is reported before its last statement's completion: a deferred
  // foreign key's rejection is told apart by its constraint.
  if (completed !== undefined && completed < batch.texts.length && !deferredForeignKey(error, schema))
    return batch.statements[completed]
  return rejectedStatement(batch.statements, error, schema)
}

/**
 * The character a 22P05 error is about (`character with byte sequence 0xe2 0x82 0xac in encoding
 * "UTF8" has no equivalent in encoding "LATIN1"`: `€`), or undefined.
 */
function untranslatable(error: RejectionFacts & { readonly message?: string }): string | undefined {
  if (error.sqlState !== '22P05' || error.message === undefined) return undefined
  const bytes = /byte sequence ((?:0x[0-9a-f]{2} ?)+) in encoding "UTF8"/i.exec(error.message)?.[1]
  if (bytes === undefined) return undefined
  const character = Buffer.from(
    bytes
      .trim()
      .split(' ')
      .map((b) => Number.parseInt(b.slice(2), 16)),
  ).toString('utf8')
  return character.includes('\ufffd') ? undefined : character
}

/**
 * The update or delete of `statements` that found fewer rows than it had to (`stale`): of those on its
 * table, the first whose key parameters hold the first key it names, else the first.
 */
function staleStatement(
  statements: readonly (PlannedStatement | undefined)[],
  stale: StaleRows,
): PlannedStatement | undefined {
  let first: PlannedStatement | undefined
  const tuple = stale.keyTuples[0]
  for (const s of statements) {
    if (s === undefined || s.kind === 'insert') continue
    // The check names its table by key, as the statement does.
    if (s.table !== stale.table) continue
    first ??= s
    if (tuple === undefined) continue
    for (let r = 0; r < s.rowCount; r++) if (tuple.every((text, i) => s.params[i]?.[r] === text)) return s
  }
  return first
}
