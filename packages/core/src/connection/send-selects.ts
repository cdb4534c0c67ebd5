import type { DriverError, Param, PipelinedStatement, Row } from '../drivers/driver.ts'
import type { GuardedSession } from '../drivers/guarded-session.ts'
import { inlineParams } from '../drivers/inline-params.ts'
import { statementName } from './statement-name.ts'

/** One select: its text and text parameters (`$1`...). */
export interface Select {
  readonly text: string
  readonly params: readonly Param[]
  /**
   * Read in one snapshot with the other selects of its batch (the levels of a graph load, each of which
   * selects its parent level's rows again): outside a transaction, the batch goes in a read-only
   * REPEATABLE READ transaction of its own, in the same round trip.
   */
  readonly snapshot?: boolean | undefined
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
  /**
   * `SET LOCAL` texts (see `LocalSettings`), sent first in the batch's transaction: the one BEGIN
   * opens, else one of the batch's own. None inside a transaction held open, which its BEGIN's batch
   * set them in.
   */
  readonly settings?: readonly string[] | undefined
}

const BEGIN: PipelinedStatement = { text: 'begin', params: [] }
/** The transaction of a batch read in one snapshot (see {@link Select.snapshot}). */
const SNAPSHOT = 'begin isolation level repeatable read, read only'
const SNAPSHOT_BEGIN: PipelinedStatement = { text: SNAPSHOT, params: [] }
const COMMIT: PipelinedStatement = { text: 'commit', params: [] }
const NO_SETTINGS: readonly string[] = []
const NO_STATEMENTS: readonly PipelinedStatement[] = []

/** A text sent unnamed and without parameters in a pipeline. */
function unnamed(text: string): PipelinedStatement {
  return { text, params: [] }
}

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
  const continued = session.continued
  const inTransaction = begin || continued
  // Levels of one graph load read one snapshot: else a commit between two of them (READ COMMITTED
  // takes a snapshot per statement) gives a level the relations of other roots than the ones read.
  const snapshot = !inTransaction && selects.length > 1 && selects.some((s) => s.snapshot === true)
  const settings = continued ? NO_SETTINGS : (options.settings ?? NO_SETTINGS)
  if (session.session.pipeline !== undefined && (options.named || inTransaction || snapshot)) {
    const sent = selects.map((s) => ({
      text: s.text,
      params: s.params,
      name: options.named ? statementName(s.text) : undefined,
    }))
    // Each statement of a pipeline ends with its Sync: settings last past theirs in a transaction only.
    const own = !inTransaction && (snapshot || settings.length > 0)
    const opening =
      begin || own ? [snapshot ? SNAPSHOT_BEGIN : BEGIN, ...settings.map(unnamed)] : NO_STATEMENTS
    // A select that fails aborts the transaction: the later ones and the COMMIT (a ROLLBACK then) end it.
    // The usual batch (named, outside a transaction) goes as it is, nothing copied.
    const statements = own
      ? [...opening, ...sent, COMMIT]
      : opening.length === 0
        ? sent
        : [...opening, ...sent]
    const results = await session.pipeline(statements)
    // A statement prepared on this connection whose table changed since (a column added, a type
    // changed) fails there for good: the connection goes, the pool opens one that prepares it anew.
    if (options.named && results.some(stalePlan)) session.session.terminate()
    // A setting the server refused fails the batch (its selects did not run).
    for (let i = 0; i < opening.length; i++) {
      const r = results[i]!
      if (r.status === 'rejected') throw r.reason
    }
    return results.slice(opening.length, opening.length + sent.length).map((r) => {
      if (r.status === 'rejected') throw r.reason
      return r.value.rows
    })
  }
  const texts = selects.map((s) => inlineParams(s.text, s.params))
  // Without BEGIN, the message runs as one implicit transaction, which the settings last through.
  const set = settings.length === 0 ? texts : [...settings, ...texts]
  const parts = begin ? ['begin', ...set] : snapshot ? [SNAPSHOT, ...set, 'commit'] : set
  try {
    return [...(await session.simple(parts.join(';\n'), { rowSets: selects.length })).rowSets]
  } catch (e) {
    // The server skipped the rest of the message, the COMMIT with it: its transaction is still open.
    // Rolled back even when the error says the text did not parse: a statement that parses text as it
    // runs (a cast to regtype, EXECUTE) fails in the parser too, with a position, after the BEGIN ran;
    // a message that did not parse at all leaves none open, and the ROLLBACK only draws a warning.
    if (snapshot && (e as DriverError)?.kind === 'server' && session.usable)
      await session.simple('rollback').catch(() => {})
    throw e
  }
}

/**
 * Whether `result` failed because the statement prepared on the connection returns other columns now
 * (SQLSTATE 0A000, "cached plan must not change result type"): a named statement whose table changed.
 */
function stalePlan(result: PromiseSettledResult<unknown>): boolean {
  if (result.status !== 'rejected') return false
  const e = result.reason as Partial<DriverError> | undefined
  return e?.sqlState === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan')
}
