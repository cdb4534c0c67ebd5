import { PipeflushError } from '../errors.ts'
import { parseStaleError } from '../plan/stale-check.ts'
import type { PlannedStatement } from '../plan/types.ts'

/** postgres.js and Node error codes that mean the connection is gone (or was never made). */
const CONNECTION_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOTCONN',
  'EPIPE',
  'ETIMEDOUT',
  'ERR_SOCKET_CLOSED',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
])

/**
 * SQLSTATEs after which the server closes the session: connection exceptions (class 08), shutdowns
 * and session timeouts (57P01-57P05), and idle-in-transaction timeout (25P03).
 */
function isSessionEndingState(code: string): boolean {
  return code.startsWith('08') || /^57P0[1-5]$/.test(code) || code === '25P03'
}

interface DriverError {
  readonly code?: unknown
  readonly message?: unknown
  readonly constraint_name?: unknown
  readonly table_name?: unknown
  readonly column_name?: unknown
  readonly detail?: unknown
}

/** Is `e` the driver telling that the connection was lost? */
export function isConnectionError(e: unknown): boolean {
  const code = (e as DriverError | null)?.code
  return typeof code === 'string' && (CONNECTION_CODES.has(code) || isSessionEndingState(code))
}

/** 25P02: a statement sent after an earlier one failed in the same transaction. */
export function isAbortedTransactionError(e: unknown): boolean {
  return (e as DriverError | null)?.code === '25P02'
}

/**
 * Turns the driver's error for `statement` into a {@link PipeflushError}: optimistic-lock failures
 * (recognised from the planner's row-count check), constraint violations (with the constraint's
 * name), lost connections, or any other statement failure. The driver's error is the `cause`.
 */
export function classifyStatementError(
  e: unknown,
  statement: PlannedStatement | undefined,
  flushId: string,
): PipeflushError {
  if (e instanceof PipeflushError) return e
  const err = (e ?? {}) as DriverError
  const message = typeof err.message === 'string' ? err.message : String(e)
  const sqlState = typeof err.code === 'string' && /^[0-9A-Z]{5}$/.test(err.code) ? err.code : undefined
  const stale = parseStaleError(e)
  if (stale) {
    const keys = stale.keys
    return new PipeflushError(
      'OPTIMISTIC_LOCK',
      `Optimistic lock failed on ${stale.table}: ${statement?.kind ?? 'write'} of row(s) ${keys.join(', ')} matched no row (changed or deleted by another transaction). Nothing was committed.`,
      { table: stale.table, keys, sqlState, flushId, cause: e },
    )
  }
  if (isConnectionError(e)) {
    return new PipeflushError(
      'CONNECTION_LOST',
      `The connection was lost during the flush (${String(err.code)}). Nothing was committed.`,
      {
        table: statement?.table,
        flushId,
        cause: e,
      },
    )
  }
  const table = statement?.table ?? (typeof err.table_name === 'string' ? err.table_name : undefined)
  if (sqlState?.startsWith('23')) {
    const constraint = typeof err.constraint_name === 'string' ? err.constraint_name : undefined
    const detail = typeof err.detail === 'string' ? ` (${err.detail})` : ''
    return new PipeflushError(
      'CONSTRAINT_VIOLATION',
      `${statement ? `${statement.kind} into ${statement.table}` : 'A statement'} violated ${constraint ? `constraint "${constraint}"` : 'a constraint'}: ${message}${detail}. Nothing was committed.`,
      {
        table,
        constraint,
        sqlState,
        keys: statement?.keys,
        column: typeof err.column_name === 'string' ? err.column_name : undefined,
        flushId,
        cause: e,
      },
    )
  }
  return new PipeflushError(
    'STATEMENT_FAILED',
    `${statement ? `${statement.kind} on ${statement.table}` : 'A statement'} failed: ${message}. Nothing was committed.`,
    { table, sqlState, keys: statement?.keys, flushId, cause: e },
  )
}

/**
 * The error that explains a failed transaction: the first statement whose error is not the
 * consequence of an earlier one (25P02), as a {@link PipeflushError}.
 */
export function firstCause(
  results: readonly PromiseSettledResult<unknown>[],
  statements: readonly (PlannedStatement | undefined)[],
  flushId: string,
): PipeflushError | undefined {
  let fallback: PipeflushError | undefined
  for (let i = 0; i < results.length; i++) {
    const r = results[i]
    if (r?.status !== 'rejected') continue
    if (isAbortedTransactionError(r.reason)) {
      fallback ??= classifyStatementError(r.reason, statements[i], flushId)
      continue
    }
    return classifyStatementError(r.reason, statements[i], flushId)
  }
  return fallback
}
