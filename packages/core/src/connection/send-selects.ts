import type { Param, PipelinedStatement, Row } from '../drivers/driver.ts'
import type { GuardedSession } from '../drivers/guarded-session.ts'
import { inlineParams } from '../drivers/inline-params.ts'
import { statementName } from './statement-name.ts'

/** One select: its text and text parameters (`$1`...). */
export interface Select {
  readonly text: string
  readonly params: readonly Param[]
}

/** How a batch of selects may go. */
export interface SelectsOptions {
  /**
   * Whether statements may be named (prepared once per connection): no transaction pooler in between,
   * or the application said so (`prepare: true`).
   */
  readonly named: boolean
  /** Send BEGIN in front of the selects (the first locking read of a unit of work). */
  readonly begin?: boolean | undefined
}

const BEGIN: PipelinedStatement = { text: 'begin', params: [] }

/**
 * `selects` on `session` in one round trip: each one's rows. The one rule of how a batch of selects
 * goes: pipelined with a Sync each (named when statements may be named) where the session pipelines
 * and either statements may be named or they run in a transaction (a BEGIN sent with them, or the
 * connection's transaction held open); else one simple-protocol message, the parameters written as
 * literals. Outside a transaction, behind a transaction pooler (PgBouncer, Supavisor), the first
 * ReadyForQuery lets the pooler hand the server connection to another client and the answers to the
 * later selects go with it; in a transaction the pooler keeps it until the transaction ends.
 *
 * @example
 * const [rows] = await sendSelects(session, [{ text: 'select $1::int as n', params: ['1'] }], { named: false })
 */
export async function sendSelects(
  session: GuardedSession,
  selects: readonly Select[],
  options: SelectsOptions,
): Promise<(readonly Row[])[]> {
  const begin = options.begin === true
  const inTransaction = begin || session.continued
  if (session.session.pipeline !== undefined && (options.named || inTransaction)) {
    const sent = selects.map((s) => ({
      text: s.text,
      params: s.params,
      name: options.named ? statementName(s.text) : undefined,
    }))
    const results = await session.pipeline(begin ? [BEGIN, ...sent] : sent)
    return results.slice(begin ? 1 : 0).map((r) => {
      if (r.status === 'rejected') throw r.reason
      return r.value.rows
    })
  }
  const texts = selects.map((s) => inlineParams(s.text, s.params))
  const text = (begin ? ['begin', ...texts] : texts).join(';\n')
  return [...(await session.simple(text, { rowSets: selects.length })).rowSets]
}
