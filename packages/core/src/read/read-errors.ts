import type { DriverError } from '../drivers/driver.ts'
import { connectFailure } from '../drivers/driver-errors.ts'
import { Interrupted } from '../drivers/guarded-session.ts'
import { errors, PipeflushError } from '../errors.ts'

/**
 * A read's failure as a coded error: timed out, connection lost, or a statement the server refused.
 *
 * Reads fail with the codes flushes fail with, so the application handles both alike.
 */
export function readError(e: unknown, what: string, timeoutMs: number): PipeflushError {
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

/**
 * A read that could not get a connection, as a coded error: timed out waiting, could not connect (and
 * why), or the connection failed.
 *
 * As {@link readError}: a read that got no connection is coded as a flush that got none.
 */
export function reservationError(d: DriverError, what: string, timeoutMs: number): PipeflushError {
  if (d.code === 'DEADLINE') return errors.queryTimeout(what, timeoutMs, 'still waiting for a connection')
  const failure = connectFailure(d)
  if (failure !== undefined)
    return errors.cannotConnect(failure, what, d.message, { sqlState: d.sqlState, cause: d.cause })
  return errors.queryFailed(what, { ...d, kind: 'connection' })
}
