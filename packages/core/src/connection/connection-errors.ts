import type { DriverError } from '../drivers/driver.ts'
import { connectFailure } from '../drivers/driver-errors.ts'
import { Interrupted } from '../drivers/guarded-session.ts'
import { errors, PipeflushError } from '../errors.ts'

/** What a connection is got for, as its errors name it. */
export interface Purpose {
  /** Names the work in messages: `The flush`, `Reading book`. */
  readonly what: string
  /** It settles within this many milliseconds, the wait for a connection included (Infinity: no limit). */
  readonly timeoutMs: number
  /** A flush's id: its errors are a flush's (`FLUSH_TIMEOUT`, `CONNECTION_LOST`), carrying the id. */
  readonly flushId?: string | undefined
  /** Started before the application ended the client (see `Driver.admit`): its reservation is served. */
  readonly admitted?: boolean | undefined
  /** What set `timeoutMs`, where it is not `flushTimeoutMs` alone (connect's queries), for messages. */
  readonly limit?: string | undefined
}

/**
 * The coded error of getting no connection for `purpose`: timed out waiting (`FLUSH_TIMEOUT` or
 * `QUERY_TIMEOUT`, pipeflush's deadline or the pool's own wait), could not connect and why (`LOGIN_FAILED`, `HOST_UNREACHABLE`...), or the
 * connection failed (`CONNECTION_LOST`). A read that got no connection is coded as a flush that got
 * none, so the application handles both alike.
 *
 * @example
 * reservationError({ kind: 'connection', code: 'DEADLINE', message: 'timed out', cause }, { what: 'Reading book', timeoutMs: 100 })
 * // QUERY_TIMEOUT: Reading book did not settle within flushTimeoutMs (100 ms): still waiting for a connection
 */
export function reservationError(e: DriverError, purpose: Purpose): PipeflushError {
  const { what, timeoutMs, flushId } = purpose
  if (e.code === 'DEADLINE') {
    return flushId === undefined
      ? errors.queryTimeout(what, timeoutMs, 'still waiting for a connection', purpose.limit)
      : errors.flushTimeout(flushId, timeoutMs, 'still waiting for a connection')
  }
  // The application's pool gave up waiting for a free connection, before pipeflush's deadline.
  if (e.code === 'POOL_TIMEOUT') return errors.poolTimeout(what, e.message, flushId, e.cause)
  const failure = connectFailure(e)
  if (failure !== undefined)
    return errors.cannotConnect(failure, what, e.message, {
      ...(flushId === undefined ? {} : { flushId }),
      sqlState: e.sqlState,
      cause: e.cause,
    })
  if (flushId === undefined) return errors.queryFailed(what, { ...e, kind: 'connection' })
  if (e.code === 'CONNECTION_ENDED') return errors.clientEnded(flushId, e.message, e.cause)
  if (e.kind === 'connection') return errors.noConnection(flushId, e.message, e.cause, e.sqlState)
  return errors.reservationFailed(flushId, e.message, e.cause)
}

/**
 * A select's failure as a coded error: timed out (`QUERY_TIMEOUT`), connection lost
 * (`CONNECTION_LOST`), or a statement the server refused (`STATEMENT_FAILED`).
 *
 * @example
 * selectError(new Interrupted('timeout'), 'Reading book', 100) // QUERY_TIMEOUT
 */
export function selectError(e: unknown, what: string, timeoutMs: number): PipeflushError {
  if (e instanceof PipeflushError) return e
  if (e instanceof Interrupted) {
    return e.reason === 'timeout'
      ? errors.queryTimeout(what, timeoutMs, 'the connection was terminated')
      : errors.queryFailed(
          what,
          e.driverError ?? { kind: 'connection', message: 'the connection ended', cause: e },
        )
  }
  return errors.queryFailed(what, e as DriverError)
}
