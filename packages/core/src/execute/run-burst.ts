import type postgres from 'postgres'
import { PipeflushError } from '../errors.ts'
import type { PlannedStatement } from '../plan/types.ts'
import { textArrayParam } from '../values/index.ts'
import { classifyStatementError, firstCause, isConnectionError } from './classify-error.ts'
import { type Reserved, rollback, runBefore, terminate, tracked, usable, withReserved } from './reserved.ts'
import { batch, statementAt } from './simple-batch.ts'
import { statementQuery } from './statement-query.ts'
import type { ExecuteContext, ExecuteResult } from './types.ts'
import { isWarm, markWarm } from './warm-statements.ts'

/**
 * `burst`: BEGIN, every statement of every wave and COMMIT written at once on one reserved connection
 * and awaited together: one round trip (ids are assigned before, so no wave needs an earlier one's
 * results). The COMMIT's answer is checked: `ROLLBACK` means a statement failed.
 *
 * Because the COMMIT leaves with everything else, a connection lost before the COMMIT's answer leaves
 * the outcome unknown (`COMMIT_OUTCOME_UNKNOWN`) unless the server already answered an error for one
 * of the statements: the flush log (`flushLog` option) tells afterwards.
 *
 * On a connection where some statement is not prepared yet, postgres.js would describe it first and
 * stall the pipeline (trap 2), so the cold path sends the statements with literal parameters as one
 * simple-protocol query after BEGIN (still one round trip), then prepares them in the background
 * before the connection returns to the pool, so the next flush there takes the prepared path. Without
 * prepared statements (`prepare: false`), BEGIN, the statements and COMMIT are one simple-protocol
 * query: one round trip, one message, nothing prepared (what transaction-mode poolers need).
 */
export function runBurst(ctx: ExecuteContext): Promise<ExecuteResult> {
  return withReserved(ctx, async (r) => {
    const before = await runBefore(ctx, r)
    const plan = ctx.makePlan()
    const statements = plan.waves.flat()
    if (!ctx.prepare) {
      await unprepared(ctx, r, statements)
      return { roundTrips: before + 1, cold: false, plan }
    }
    const begin = tracked(r, ctx.beginSql)
    begin.catch(() => {}) // awaited below with the others; never an unhandled rejection meanwhile
    void begin.execute()
    // postgres.js hands a query to its connection one microtask later; its hook then tells which
    // connection this is. Only microtasks: BEGIN must not be written before the statements.
    for (let i = 0; i < 5 && r.connection === undefined; i++) await Promise.resolve()
    const cold = statements.filter((s) => !isWarm(r.connection, s.sql))
    const roundTrips =
      cold.length === 0
        ? await prepared(ctx, r, begin, statements)
        : await simple(ctx, r, begin, statements, cold)
    return { roundTrips: before + roundTrips, cold: cold.length > 0, plan }
  })
}

async function prepared(
  ctx: ExecuteContext,
  r: Reserved,
  begin: postgres.PendingQuery<postgres.Row[]>,
  statements: readonly PlannedStatement[],
): Promise<number> {
  // postgres.js keeps at most `max_pipeline` queries in flight and sends the rest one by one (trap 3):
  // statements beyond it go as one simple-protocol query, which counts as one.
  const maxPipeline = Number((ctx.sql.options as { max_pipeline?: number }).max_pipeline ?? 100)
  const room = Math.max(1, maxPipeline - 3)
  const inline = statements.length > room ? statements.slice(room) : []
  const direct = inline.length > 0 ? statements.slice(0, room) : statements
  const queries = direct.map((s) => statementQuery(r.sql, s))
  const overflowBatch = inline.length > 0 ? batch(inline) : undefined
  const overflow = overflowBatch ? [r.sql.unsafe(overflowBatch.text)] : []
  const commit = r.sql.unsafe('commit')
  r.commitSent = true
  // postgres.js sends a query when it is first awaited (`then`): this call fixes the order on the wire,
  // BEGIN, the statements, the overflow, COMMIT. Nothing may touch a query before it.
  const all = Promise.allSettled([begin, ...queries, ...overflow, commit])
  // Every statement answers before the COMMIT does. One still pending when the COMMIT answers is
  // being re-sent by postgres.js (it retries a prepared statement that failed with "prepared statement
  // does not exist" or a stale cached plan, e.g. behind a transaction-mode pooler): that retry would
  // run after the transaction ended, on its own, and commit. Close the connection before it can.
  const pending = new Set<unknown>([...queries, ...overflow])
  let abandoned = false
  for (const q of pending) {
    ;(q as Promise<unknown>).then(
      () => pending.delete(q),
      () => pending.delete(q),
    )
  }
  const onCommitAnswer = () => {
    if (pending.size > 0) {
      abandoned = true
      terminate(r)
    }
  }
  commit.then(onCommitAnswer, onCommitAnswer)
  const results = await all
  if (abandoned) throw retriedOutside(ctx, queries, direct)
  const overflowResult = overflowBatch ? results[results.length - 2] : undefined
  const overflowStatement =
    overflowBatch && overflowResult?.status === 'rejected'
      ? statementAt(overflowResult.reason, overflowBatch)
      : undefined
  settle(ctx, results, [undefined, ...direct, ...(overflowBatch ? [overflowStatement] : []), undefined])
  markWarm(
    r.connection,
    direct.map((s) => s.sql),
  )
  return 1
}

async function simple(
  ctx: ExecuteContext,
  r: Reserved,
  begin: postgres.PendingQuery<postgres.Row[]>,
  statements: readonly PlannedStatement[],
  cold: readonly PlannedStatement[],
): Promise<number> {
  const b = batch(statements, '', 'commit')
  const body = r.sql.unsafe(b.text)
  r.commitSent = true
  const results = await Promise.allSettled([begin, body])
  const [, bodyResult] = results
  if (bodyResult?.status === 'rejected' && !isConnectionError(bodyResult.reason)) {
    // The rest of the query string, COMMIT included, was skipped; the transaction is aborted.
    await rollback(r)
    settle(
      ctx,
      [results[0] as PromiseSettledResult<unknown>, bodyResult],
      [undefined, statementAt(bodyResult.reason, b)],
    )
  }
  settle(ctx, results, [undefined, undefined])
  if (usable(r)) r.lingering = warm(r, cold)
  return 1
}

/** BEGIN, the statements and COMMIT as one simple-protocol query. */
async function unprepared(
  ctx: ExecuteContext,
  r: Reserved,
  statements: readonly PlannedStatement[],
): Promise<void> {
  const b = batch(statements, ctx.beginSql, 'commit')
  const query = tracked(r, b.text)
  r.commitSent = true
  let result: unknown
  try {
    result = await query
  } catch (e) {
    if (isConnectionError(e)) throw outcomeUnknown(ctx, e)
    // A statement (or the COMMIT itself) failed: the rest of the string was skipped, nothing committed.
    await rollback(r)
    throw classifyStatementError(e, statementAt(e, b), ctx.flushId)
  }
  const command = lastCommand(result)
  if (command !== 'COMMIT') {
    throw new PipeflushError('ROLLED_BACK', `COMMIT answered ${String(command)}: nothing was committed.`, {
      flushId: ctx.flushId,
    })
  }
}

/**
 * The error of a flush whose connection was closed because postgres.js was re-sending a statement
 * after the COMMIT answered (see `prepared`): the statement's first error (kept by postgres.js as
 * `retried`), with what happened. The transaction did not commit (its COMMIT answered).
 */
function retriedOutside(
  ctx: ExecuteContext,
  queries: readonly postgres.PendingQuery<postgres.Row[]>[],
  statements: readonly PlannedStatement[],
): PipeflushError {
  const i = queries.findIndex((q) => (q as { retried?: unknown }).retried !== undefined)
  const first = i < 0 ? undefined : (queries[i] as { retried?: unknown }).retried
  const statement = i < 0 ? undefined : statements[i]
  const cause = classifyStatementError(first ?? new Error('a statement was re-sent'), statement, ctx.flushId)
  return new PipeflushError(
    cause.code === 'CONNECTION_LOST' ? 'STATEMENT_FAILED' : cause.code,
    `${cause.message} The driver was about to re-send the statement after the transaction ended (a named prepared statement missing on the server, as behind a transaction-mode pooler without prepared statement support: see the prepare option); the connection was closed first.`,
    {
      table: cause.table,
      column: cause.column,
      keys: cause.keys,
      constraint: cause.constraint,
      sqlState: cause.sqlState,
      flushId: ctx.flushId,
      cause: first,
    },
  )
}

/** The command tag of the last statement of a (possibly multi-statement) simple query's result. */
function lastCommand(result: unknown): string | undefined {
  const single = (result as { command?: unknown } | null)?.command
  if (typeof single === 'string') return single
  if (Array.isArray(result)) return lastCommand(result[result.length - 1])
  return undefined
}

function outcomeUnknown(ctx: ExecuteContext, cause: unknown): PipeflushError {
  const code = String((cause as { code?: unknown } | null)?.code ?? 'unknown')
  return new PipeflushError(
    'COMMIT_OUTCOME_UNKNOWN',
    `The connection was lost (${code}) before the COMMIT's answer. In burst mode the COMMIT is sent with the statements, so flush ${ctx.flushId} may or may not be committed. Check the flush log (em.wasCommitted(flushId)) before retrying.`,
    { flushId: ctx.flushId, cause },
  )
}

/** Throws the flush's error, if any, from the settled results of BEGIN, the statements and COMMIT. */
function settle(
  ctx: ExecuteContext,
  results: readonly PromiseSettledResult<unknown>[],
  statements: readonly (PlannedStatement | undefined)[],
): void {
  const last = results[results.length - 1]
  if (last?.status === 'fulfilled') {
    const command = lastCommand(last.value)
    if (command === 'ROLLBACK') {
      throw (
        firstCause(results, statements, ctx.flushId) ??
        new PipeflushError('ROLLED_BACK', 'COMMIT answered ROLLBACK: nothing was committed.', {
          flushId: ctx.flushId,
        })
      )
    }
    // A statement failing inside the transaction makes the COMMIT answer ROLLBACK; one failing while
    // the COMMIT committed ran outside the transaction: never report that as a success.
    const failed = results.findIndex((x) => x.status === 'rejected')
    if (failed >= 0) {
      const cause = firstCause(results, statements, ctx.flushId)
      throw new PipeflushError(
        'STATEMENT_FAILED',
        `A statement failed although the COMMIT committed (it ran outside the flush's transaction): flush ${ctx.flushId} may be partly committed. ${cause?.message ?? ''}`,
        { flushId: ctx.flushId, table: cause?.table, keys: cause?.keys, cause },
      )
    }
    return
  }
  const cause = firstCause(results, statements, ctx.flushId)
  if (last?.status === 'rejected' && isConnectionError(last.reason)) {
    // A statement the server rejected aborts the transaction: then nothing can have committed.
    const serverRejected = results.some((x) => x.status === 'rejected' && !isConnectionError(x.reason))
    if (!serverRejected) throw outcomeUnknown(ctx, last.reason)
  }
  throw (
    cause ??
    classifyStatementError(
      last?.status === 'rejected' ? last.reason : new Error('flush failed'),
      undefined,
      ctx.flushId,
    )
  )
}

/** Prepares `statements` on the reserved connection (one round trip each), then records them warm. */
async function warm(r: Reserved, statements: readonly PlannedStatement[]): Promise<void> {
  try {
    for (const s of statements) {
      if (!usable(r)) return
      await r.sql
        .unsafe(
          s.sql,
          s.params.map(() => textArrayParam([])) as postgres.ParameterOrJSON<never>[],
          { prepare: true } as postgres.UnsafeQueryOptions,
        )
        .describe()
      markWarm(r.connection, [s.sql])
    }
  } catch {
    // A connection that fails here is replaced by the pool; the next flush takes the cold path again.
  }
}
