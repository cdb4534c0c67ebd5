import type { Answer, ScriptedStatement } from './answers.ts'
import { normalizeSql } from './split-statements.ts'

/**
 * Which statements a handler answers: a text (equal to the statement once both have their comments
 * dropped and whitespace collapsed, case ignored), a pattern (tested against that normalized text), or
 * a predicate.
 */
export type StatementMatch = string | RegExp | ((statement: ScriptedStatement) => boolean)

/**
 * Answers the statements it matches: with `answer`, or what a function of the statement returns (it
 * may be async, to hold the answer back).
 *
 * @example
 * const insert: ScriptedHandler = { match: /^insert into "public"\."author"/, answer: { tag: 'INSERT 0 1' } }
 * const pid: ScriptedHandler = { match: 'select pg_backend_pid()', answer: (s) => ({ rows: [{ pid: s.processId }] }) }
 */
export interface ScriptedHandler {
  readonly match: StatementMatch
  readonly answer: Answer | ((statement: ScriptedStatement) => Answer | Promise<Answer>)
  /** Answers at most this many statements, then lets later handlers answer (default: no limit). */
  readonly times?: number
}

/** Handlers in order, the first that matches and has uses left answering. */
export class HandlerList {
  readonly #entries: { readonly handler: ScriptedHandler; used: number }[] = []

  constructor(handlers: readonly ScriptedHandler[] = []) {
    for (const h of handlers) this.add(h)
  }

  add(handler: ScriptedHandler): void {
    this.#entries.push({ handler, used: 0 })
  }

  /** Puts `handler` before every other. */
  addFirst(handler: ScriptedHandler): void {
    this.#entries.unshift({ handler, used: 0 })
  }

  clear(): void {
    this.#entries.length = 0
  }

  /**
   * The handler that answers `statement`, counted as used unless `statement.describing` (a Describe
   * asks for the columns only; the execution asks again).
   */
  find(statement: ScriptedStatement): ScriptedHandler | undefined {
    for (const entry of this.#entries) {
      const { handler } = entry
      if (handler.times !== undefined && entry.used >= handler.times) continue
      if (!matches(handler.match, statement)) continue
      if (!statement.describing) entry.used++
      return handler
    }
    return undefined
  }
}

/** Whether `match` selects `statement` (see {@link StatementMatch}). */
export function matches(match: StatementMatch, statement: ScriptedStatement): boolean {
  if (typeof match === 'string')
    return normalizeSql(match).toLowerCase() === statement.normalized.toLowerCase()
  if (match instanceof RegExp) {
    match.lastIndex = 0
    return match.test(statement.normalized)
  }
  return match(statement)
}

/** The answer of `handler` to `statement`. */
export async function answerOf(handler: ScriptedHandler, statement: ScriptedStatement): Promise<Answer> {
  return typeof handler.answer === 'function' ? await handler.answer(statement) : handler.answer
}
