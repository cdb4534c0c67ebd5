import type postgres from 'postgres'
import { PipeflushError } from '../errors.ts'
import { classifyStatementError, isConnectionError } from './classify-error.ts'
import type { ExecuteContext } from './types.ts'
import { forgetConnection } from './warm-statements.ts'

/** A reserved connection, and the postgres.js connection object behind it once known. */
export interface Reserved {
  readonly sql: postgres.ReservedSql
  connection: object | undefined
  /** Work that keeps the connection after the flush settled (warming statements); released after it. */
  lingering: Promise<void> | undefined
}

/**
 * Runs `body` on a connection reserved from the pool, always released after, also on failure. The
 * connection object is learnt from the first query's `onexecute` hook (see `warm-statements.ts`).
 */
export async function withReserved<T>(ctx: ExecuteContext, body: (r: Reserved) => Promise<T>): Promise<T> {
  let sql: postgres.ReservedSql
  try {
    sql = await ctx.sql.reserve()
  } catch (e) {
    throw new PipeflushError(
      'CONNECTION_LOST',
      `Could not get a connection for the flush: ${String((e as Error)?.message ?? e)}. Nothing was sent.`,
      {
        flushId: ctx.flushId,
        cause: e,
      },
    )
  }
  const r: Reserved = { sql, connection: undefined, lingering: undefined }
  try {
    return await body(r)
  } catch (e) {
    if (
      isConnectionError(e) ||
      (e instanceof PipeflushError && (e.code === 'CONNECTION_LOST' || e.code === 'COMMIT_OUTCOME_UNKNOWN'))
    ) {
      forgetConnection(r.connection)
    }
    throw e
  } finally {
    if (r.lingering) void r.lingering.finally(() => sql.release())
    else sql.release()
  }
}

/** A query that reports the connection it runs on. */
export function tracked(r: Reserved, text: string): postgres.PendingQuery<postgres.Row[]> {
  return r.sql.unsafe(text, [], {
    // postgres.js stops pipelining after a query whose hook returns a falsy value: return true.
    onexecute: (c: object) => {
      r.connection ??= c
      return true
    },
  } as postgres.UnsafeQueryOptions)
}

/**
 * An awaited transaction on `r`: BEGIN, `body`, COMMIT (its command checked), each awaited; ROLLBACK
 * when `body` fails. Returns the round trips of BEGIN and COMMIT (2).
 */
export async function awaitedTransaction(
  r: Reserved,
  flushId: string,
  body: () => Promise<void>,
): Promise<number> {
  try {
    await tracked(r, 'begin')
  } catch (e) {
    throw classifyStatementError(e, undefined, flushId)
  }
  try {
    await body()
  } catch (e) {
    await r.sql.unsafe('rollback').catch(() => {})
    throw e
  }
  let commit: postgres.RowList<postgres.Row[]>
  try {
    commit = await r.sql.unsafe('commit')
  } catch (e) {
    if (isConnectionError(e)) {
      throw new PipeflushError(
        'COMMIT_OUTCOME_UNKNOWN',
        `The connection was lost after COMMIT was sent and before its answer: the flush may or may not be committed. Check for flush ${flushId}.`,
        { flushId, cause: e },
      )
    }
    throw classifyStatementError(e, undefined, flushId)
  }
  if (commit.command !== 'COMMIT') {
    throw new PipeflushError('ROLLED_BACK', `COMMIT answered ${commit.command}: nothing was committed.`, {
      flushId,
    })
  }
  return 2
}
