import type postgres from 'postgres'
import { PipeflushError } from '../errors.ts'
import type { PlannedStatement } from '../plan/types.ts'
import { textArrayParam } from '../values/index.ts'
import { classifyStatementError, firstCause, isConnectionError } from './classify-error.ts'
import { type Reserved, tracked, withReserved } from './reserved.ts'
import { inlineParams } from './simple-sql.ts'
import { statementQuery } from './statement-query.ts'
import type { ExecuteContext, ExecuteResult } from './types.ts'
import { isWarm, markWarm } from './warm-statements.ts'

/**
 * `burst`: BEGIN, every statement of every wave and COMMIT written at once on one reserved connection
 * and awaited together: one round trip (ids are assigned before, so no wave needs an earlier one's
 * results). The COMMIT's answer is checked: `ROLLBACK` means a statement failed.
 *
 * On a connection where some statement is not prepared yet, postgres.js would describe it first and
 * stall the pipeline (trap 2), so the cold path sends the statements with literal parameters as one
 * simple-protocol query after BEGIN (still one round trip), then prepares them in the background
 * before the connection returns to the pool, so the next flush there takes the prepared path.
 */
export function runBurst(ctx: ExecuteContext): Promise<ExecuteResult> {
  return withReserved(ctx, async (r) => {
    const before = ctx.before ? await ctx.before(r.sql) : 0
    const plan = ctx.makePlan()
    const statements = plan.waves.flat()
    const begin = tracked(r, 'begin')
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
  const inlineTexts = inline.map((s) => inlineParams(s))
  const overflow = inline.length > 0 ? [r.sql.unsafe(inlineTexts.join(';\n'))] : []
  const commit = r.sql.unsafe('commit')
  const results = await Promise.allSettled([begin, ...queries, ...overflow, commit])
  const overflowResult = inline.length > 0 ? results[results.length - 2] : undefined
  const overflowStatement =
    overflowResult?.status === 'rejected'
      ? statementAt(overflowResult.reason, inlineTexts, inline)
      : undefined
  settle(ctx, results, [undefined, ...direct, ...(inline.length > 0 ? [overflowStatement] : []), undefined])
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
  const texts = statements.map((s) => inlineParams(s))
  const body = r.sql.unsafe(`${texts.join(';\n')};\ncommit`)
  const results = await Promise.allSettled([begin, body])
  const [, bodyResult] = results
  if (bodyResult?.status === 'rejected') {
    const failed = statementAt(bodyResult.reason, texts, statements)
    if (!isConnectionError(bodyResult.reason)) {
      // The rest of the query string, COMMIT included, was skipped; the transaction is aborted.
      await r.sql.unsafe('rollback').catch(() => {})
    }
    settle(ctx, [results[0] as PromiseSettledResult<unknown>, bodyResult], [undefined, failed])
  }
  settle(ctx, results, [undefined, undefined])
  r.lingering = warm(r, cold)
  return 1
}

/** Throws the flush's error, if any, from the settled results of BEGIN, the statements and COMMIT. */
function settle(
  ctx: ExecuteContext,
  results: readonly PromiseSettledResult<unknown>[],
  statements: readonly (PlannedStatement | undefined)[],
): void {
  const last = results[results.length - 1]
  if (last?.status === 'fulfilled') {
    const command = (last.value as { command?: string } | undefined)?.command
    if (command === 'ROLLBACK') {
      throw (
        firstCause(results, statements, ctx.flushId) ??
        new PipeflushError('ROLLED_BACK', 'COMMIT answered ROLLBACK: nothing was committed.', {
          flushId: ctx.flushId,
        })
      )
    }
    return
  }
  const cause = firstCause(results, statements, ctx.flushId)
  if (last?.status === 'rejected' && isConnectionError(last.reason)) {
    const serverRejected = results.some((x) => x.status === 'rejected' && !isConnectionError(x.reason))
    if (!serverRejected) {
      throw new PipeflushError(
        'COMMIT_OUTCOME_UNKNOWN',
        `The connection was lost after COMMIT was sent and before its answer: flush ${ctx.flushId} may or may not be committed.`,
        { flushId: ctx.flushId, cause: last.reason },
      )
    }
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

/** The statement a simple-query error points at: by the error's position, else by its table. */
function statementAt(
  error: unknown,
  texts: readonly string[],
  statements: readonly PlannedStatement[],
): PlannedStatement | undefined {
  const position = Number((error as { position?: unknown } | null)?.position)
  if (Number.isFinite(position) && position > 0) {
    let offset = 0
    for (let i = 0; i < texts.length; i++) {
      offset += (texts[i]?.length ?? 0) + 2
      if (position <= offset) return statements[i]
    }
  }
  const table = (error as { table_name?: unknown } | null)?.table_name
  return typeof table === 'string'
    ? statements.find((s) => s.table === table || s.table.endsWith(`.${table}`))
    : undefined
}

/** Prepares `statements` on the reserved connection (one round trip each), then records them warm. */
async function warm(r: Reserved, statements: readonly PlannedStatement[]): Promise<void> {
  try {
    for (const s of statements) {
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
