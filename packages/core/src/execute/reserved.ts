import type postgres from 'postgres'
import { PipeflushError } from '../errors.ts'
import { classifyStatementError, isConnectionError } from './classify-error.ts'
import { redactError, redactSecrets } from './redact.ts'
import type { ExecuteContext, Runner } from './types.ts'
import { forgetConnection } from './warm-statements.ts'

/**
 * The parts of a postgres.js connection object pipeflush uses. `onclose` is the hook postgres.js's own
 * `sql.begin` sets: the pool calls it once when the connection's socket closes.
 */
interface PgConnection {
  terminate(): void
  onclose?: ((error: unknown) => void) | null
}

/** A reserved connection, and what pipeflush knows of it. */
export interface Reserved {
  readonly sql: postgres.ReservedSql
  /** The postgres.js connection object, learnt from the first query's `onexecute` hook. */
  connection: PgConnection | undefined
  /** Work that keeps the connection after the flush settled (warming statements); released after it. */
  lingering: Promise<void> | undefined
  /**
   * The socket closed. The pool has taken the connection back (it reconnects it on demand): nothing
   * may be sent on it any more (postgres.js would write to a null socket and throw from a timer, out of
   * reach of any catch) and it must not be released (that would put a closed connection in the pool).
   */
  closed: boolean
  /** pipeflush terminated the connection (flush timeout); the pool takes it back once it has closed. */
  terminated: boolean
  /** The COMMIT was handed to the connection: from now on a lost connection leaves the outcome unknown. */
  commitSent: boolean
  /** Settles the flush when the connection closed and no query rejected to say so. */
  onLost?: (() => void) | undefined
  /** The hook set as the connection's `onclose`, to unset it on release. */
  onCloseHook?: ((error: unknown) => void) | undefined
}

/** Why a flush stopped early; see {@link withReserved}. */
type Abort = (error: PipeflushError) => void

/**
 * Runs `body` on a connection reserved from the pool and makes the flush settle, whatever the network
 * does:
 * - within `ctx.timeoutMs` (from the start, reserving included): past it the connection is terminated
 *   (the server rolls back a transaction that did not receive its COMMIT; the pool opens a new
 *   connection) and the flush fails with `FLUSH_TIMEOUT`, or `COMMIT_OUTCOME_UNKNOWN` when the COMMIT
 *   had been sent;
 * - when the socket closes while a query is still waiting (postgres.js can leave queued queries of a
 *   reserved connection unsettled), with `CONNECTION_LOST` or `COMMIT_OUTCOME_UNKNOWN`.
 * The connection goes back to the pool after the flush (after its lingering work), unless it closed or
 * was terminated. Errors leave with secrets redacted.
 */
export async function withReserved<T>(ctx: ExecuteContext, body: (r: Reserved) => Promise<T>): Promise<T> {
  let settled = false
  let abort: Abort = () => {}
  const aborted = new Promise<never>((_, reject) => {
    abort = (error) => {
      if (!settled) reject(error)
    }
  })
  let reserved: Reserved | undefined
  const started = performance.now()
  const timer =
    Number.isFinite(ctx.timeoutMs) && ctx.timeoutMs > 0
      ? setTimeout(() => {
          if (settled) return
          const r = reserved
          abort(timeoutError(ctx, r, performance.now() - started))
          if (r) terminate(r)
        }, ctx.timeoutMs)
      : undefined
  const work = run(
    ctx,
    body,
    (r) => {
      reserved = r
    },
    () => settled,
    (r) => abort(lostError(ctx, r)),
  )
  try {
    return await Promise.race([work, aborted])
  } catch (e) {
    throw redactError(e)
  } finally {
    settled = true
    if (timer !== undefined) clearTimeout(timer)
    work.catch(() => {})
    aborted.catch(() => {})
  }
}

async function run<T>(
  ctx: ExecuteContext,
  body: (r: Reserved) => Promise<T>,
  onReserved: (r: Reserved) => void,
  isSettled: () => boolean,
  onLost: (r: Reserved) => void,
): Promise<T> {
  let sql: postgres.ReservedSql
  try {
    sql = await reserve(ctx.sql, isSettled)
  } catch (e) {
    throw new PipeflushError(
      'CONNECTION_LOST',
      `Could not get a connection for the flush: ${redactSecrets(String((e as Error)?.message ?? e))}. Nothing was sent.`,
      { flushId: ctx.flushId, cause: e },
    )
  }
  if (isSettled()) {
    // The flush timed out while waiting for this connection: give it back untouched.
    sql.release()
    throw new PipeflushError('FLUSH_TIMEOUT', 'The flush timed out before it got a connection.', {
      flushId: ctx.flushId,
    })
  }
  const r: Reserved = {
    sql,
    connection: undefined,
    lingering: undefined,
    closed: false,
    terminated: false,
    commitSent: false,
  }
  r.onLost = () => onLost(r)
  onReserved(r)
  try {
    return await body(r)
  } catch (e) {
    if (
      r.closed ||
      r.terminated ||
      isConnectionError(e) ||
      (e instanceof PipeflushError && (e.code === 'CONNECTION_LOST' || e.code === 'COMMIT_OUTCOME_UNKNOWN'))
    ) {
      forgetConnection(r.connection)
    }
    throw e
  } finally {
    const lingering = r.lingering
    if (lingering) {
      void bounded(lingering, ctx.timeoutMs, () => terminate(r)).then(() => release(r))
    } else {
      release(r)
    }
  }
}

/** How often a reservation still waiting is asked again (see {@link reserve}). */
const RESERVE_RETRY_MS = 1000

/**
 * `sql.reserve()`, asked again every second while unanswered. postgres.js 3.4.9 drops a waiting
 * reserve request when a connection closes and the pool reconnects it for that request (with
 * `fetch_types`, the default, the request is forgotten after the type fetch): the promise would never
 * settle. The first answer wins; later ones are released at once.
 */
function reserve(sql: postgres.Sql, abandoned: () => boolean): Promise<postgres.ReservedSql> {
  return new Promise((resolve, reject) => {
    let done = false
    const finish = () => {
      done = true
      clearInterval(timer)
    }
    const ask = () => {
      if (abandoned()) {
        finish()
        reject(new Error('the flush settled while waiting for a connection'))
        return
      }
      sql.reserve().then(
        (reserved) => {
          if (done || abandoned()) {
            reserved.release()
            return
          }
          finish()
          resolve(reserved)
        },
        (error: unknown) => {
          if (done) return
          finish()
          reject(error)
        },
      )
    }
    const timer = setInterval(ask, RESERVE_RETRY_MS)
    ask()
  })
}

/** Gives the connection back to the pool, unless it closed or was terminated (the pool has it then). */
function release(r: Reserved): void {
  const c = r.connection
  if (c && c.onclose === r.onCloseHook) c.onclose = null
  if (r.closed || r.terminated) return
  r.sql.release()
}

/** Terminates the connection: in-flight queries reject at once, the socket closes, the server rolls back. */
export function terminate(r: Reserved): void {
  if (r.closed || r.terminated || !r.connection) return
  r.terminated = true
  forgetConnection(r.connection)
  try {
    r.connection.terminate()
  } catch {
    // Terminating is best effort: a connection that cannot be terminated is closing already.
  }
}

/** Resolves when `work` settles or after `ms` (then calls `onLate`), whichever comes first. */
function bounded(work: Promise<void>, ms: number, onLate: () => void): Promise<void> {
  if (!Number.isFinite(ms) || ms <= 0) return work.catch(() => {})
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      onLate()
      resolve()
    }, ms)
    work
      .catch(() => {})
      .finally(() => {
        clearTimeout(timer)
        resolve()
      })
  })
}

function timeoutError(ctx: ExecuteContext, r: Reserved | undefined, elapsed: number): PipeflushError {
  const limit = `flushTimeoutMs (${ctx.timeoutMs} ms)`
  if (r?.commitSent) {
    return new PipeflushError(
      'COMMIT_OUTCOME_UNKNOWN',
      `The flush did not settle within ${limit}, after its COMMIT was sent: flush ${ctx.flushId} may or may not be committed. The connection was terminated. Check the flush log (em.wasCommitted(flushId)) before retrying.`,
      { flushId: ctx.flushId },
    )
  }
  return new PipeflushError(
    'FLUSH_TIMEOUT',
    `The flush did not settle within ${limit} (${Math.round(elapsed)} ms elapsed${r ? '' : ', still waiting for a connection'}). Its COMMIT was not sent: nothing was committed. ${r ? 'The connection was terminated. ' : ''}The unit of work is unchanged; flush again to retry.`,
    { flushId: ctx.flushId },
  )
}

function lostError(ctx: ExecuteContext, r: Reserved): PipeflushError {
  if (r.commitSent) {
    return new PipeflushError(
      'COMMIT_OUTCOME_UNKNOWN',
      `The connection closed after the COMMIT was sent and before its answer: flush ${ctx.flushId} may or may not be committed. Check the flush log (em.wasCommitted(flushId)) before retrying.`,
      { flushId: ctx.flushId },
    )
  }
  return new PipeflushError(
    'CONNECTION_LOST',
    'The connection closed during the flush, before its COMMIT was sent. Nothing was committed.',
    { flushId: ctx.flushId },
  )
}

/**
 * Records the connection object of `r` (postgres.js passes it to `onexecute`) and hooks its close:
 * from then on pipeflush knows not to send on it or release it.
 */
function learn(r: Reserved, c: object): void {
  if (r.connection !== undefined) return
  const connection = c as PgConnection
  r.connection = connection
  r.onCloseHook = () => {
    r.closed = true
    forgetConnection(connection) // postgres.js forgets its prepared statements when it reconnects
    // Let the queries' own rejections explain the loss first; settle the flush if they do not.
    setImmediate(() => r.onLost?.())
  }
  connection.onclose = r.onCloseHook
}

/** Is it still safe to send on `r`? (Not after its socket closed or pipeflush terminated it.) */
export function usable(r: Reserved): boolean {
  return !r.closed && !r.terminated
}

/** A query that reports the connection it runs on. */
export function tracked(r: Reserved, text: string): postgres.PendingQuery<postgres.Row[]> {
  return r.sql.unsafe(text, [], {
    // postgres.js stops pipelining after a query whose hook returns a falsy value: return true.
    onexecute: (c: object) => {
      learn(r, c)
      return true
    },
  } as postgres.UnsafeQueryOptions)
}

/** A runner on `r` whose queries report the connection (for the id fetch, before the transaction). */
export function trackedRunner(r: Reserved): Runner {
  return {
    unsafe: ((text: string, params: never[] = [], options: postgres.UnsafeQueryOptions = {}) =>
      r.sql.unsafe(text, params, {
        ...options,
        onexecute: (c: object) => {
          learn(r, c)
          return true
        },
      } as postgres.UnsafeQueryOptions)) as Runner['unsafe'],
  }
}

/**
 * Runs `ctx.before` (the id fetch) on `r`, with its failure as a {@link PipeflushError}: nothing of the
 * transaction has been sent then.
 */
export async function runBefore(ctx: ExecuteContext, r: Reserved): Promise<number> {
  if (!ctx.before) return 0
  try {
    return await ctx.before(trackedRunner(r))
  } catch (e) {
    if (e instanceof PipeflushError) throw e
    if (isConnectionError(e)) {
      throw new PipeflushError(
        'CONNECTION_LOST',
        `The connection was lost while fetching ids, before the transaction (${String((e as { code?: unknown }).code)}). Nothing was committed.`,
        { flushId: ctx.flushId, cause: e },
      )
    }
    throw new PipeflushError(
      'STATEMENT_FAILED',
      `Fetching ids failed: ${String((e as Error)?.message ?? e)}. Nothing was committed.`,
      { flushId: ctx.flushId, cause: e },
    )
  }
}

/** ROLLBACK after a failed statement, when the connection is still there (never on a closed one). */
export async function rollback(r: Reserved): Promise<void> {
  if (!usable(r)) return
  await r.sql.unsafe('rollback').catch(() => {})
}

/**
 * An awaited transaction on `r`: BEGIN (with the flush log insert), `body`, COMMIT (its command
 * checked), each awaited; ROLLBACK when `body` fails. Returns the round trips of BEGIN and COMMIT (2).
 */
export async function awaitedTransaction(
  r: Reserved,
  ctx: ExecuteContext,
  body: () => Promise<void>,
): Promise<number> {
  const { flushId } = ctx
  try {
    await tracked(r, ctx.beginSql)
  } catch (e) {
    throw classifyStatementError(e, undefined, flushId)
  }
  try {
    await body()
  } catch (e) {
    await rollback(r)
    throw e
  }
  if (!usable(r)) throw lostError(ctx, r)
  let commit: postgres.RowList<postgres.Row[]>
  try {
    r.commitSent = true
    commit = await r.sql.unsafe('commit')
  } catch (e) {
    if (isConnectionError(e)) {
      throw new PipeflushError(
        'COMMIT_OUTCOME_UNKNOWN',
        `The connection was lost after COMMIT was sent and before its answer (${String((e as { code?: unknown }).code)}): flush ${flushId} may or may not be committed. Check the flush log (em.wasCommitted(flushId)) before retrying.`,
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
