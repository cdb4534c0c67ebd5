import type { DriverError } from '../drivers/driver.ts'
import { connectFailure } from '../drivers/driver-errors.ts'
import { errors, type PipeflushError } from '../errors.ts'
import type { HeldTransaction } from '../read/held-transaction.ts'
import { FlushSession } from './flush-session.ts'
import type { FlushSettings } from './flush-settings.ts'
import { interruptionError } from './outcome.ts'
import { redactError } from './redact.ts'

/** What a flush did on its connection, beside what it made there. */
export interface ConnectionUse<T> {
  /** What the flush's work on the connection returned. */
  readonly value: T
  /**
   * Round trips measured on the flush's connection, opening it included when it was opened for the
   * flush, and the openings the pool began for it on other connections (`FlushSession.openings`).
   */
  readonly roundTrips: number
  /** Whether a connection was opened for this flush. */
  readonly opened: boolean
  /** Of `roundTrips`, those of opening connections: its own, and openings the pool began for it. */
  readonly connectRoundTrips: number
  /** Bytes written and received on the flush's connection (undefined: not observed). */
  readonly bytes: { readonly sent: number; readonly received: number } | undefined
}

/**
 * Runs `work` on one connection of the pool, reserved for the flush `flushId` within its deadline
 * (`settings.timeoutMs`, which `work` shares), then gives the connection back (unless it ended or was
 * terminated, or the server refused a write as read-only: the pool replaces it). Every error leaving
 * is a {@link PipeflushError} with secrets redacted; which code follows the outcome rules (see
 * `outcome.ts`). Kysely's `provideConnection`, for a flush.
 *
 * Every mode runs on it, so a connection is reserved, timed out and given back by the same rules.
 */
export async function withFlushConnection<T>(
  settings: Pick<FlushSettings, 'driver' | 'timeoutMs'>,
  flushId: string,
  work: (fs: FlushSession) => Promise<T>,
  held?: HeldTransaction,
): Promise<ConnectionUse<T>> {
  const { driver, timeoutMs } = settings
  const deadline = Number.isFinite(timeoutMs) ? performance.now() + timeoutMs : Number.POSITIVE_INFINITY
  let fs: FlushSession
  if (held !== undefined) {
    // The connection of the unit of work's locking transaction: the flush runs inside it.
    const session = await held.take()
    if (session === undefined) throw errors.locksReleased(held.ended ?? 'it ended', flushId)
    fs = new FlushSession(session, deadline, true)
  } else {
    try {
      fs = new FlushSession(await driver.reserve({ deadline }), deadline)
    } catch (e) {
      throw redactError(reservationError(driver.toDriverError(e), flushId, timeoutMs))
    }
  }
  let use: ConnectionUse<T>
  let openings: number | Promise<number>
  try {
    const value = await work(fs)
    use = {
      value,
      roundTrips: fs.roundTrips(),
      opened: !fs.continued && fs.session.opened,
      connectRoundTrips: fs.connectRoundTrips(),
      bytes: fs.bytes(),
    }
    openings = fs.openings() // claimed before the connection goes back, counted once they are over
  } catch (e) {
    const error = interruptionError(e, fs, flushId, timeoutMs)
    // A server that refuses writes (a standby, as after a failover to a pool that still holds
    // connections to the old primary) would refuse every later flush on that connection: it is not
    // given back, so the pool opens a new one, through the address that follows the primary.
    if (error.code === 'READ_ONLY_SERVER') fs.session.terminate()
    // A transaction a locking read began ends before its connection goes back, whatever failed.
    else if (fs.continued && fs.usable) await fs.simple('rollback').catch(() => {})
    throw redactError(error)
  } finally {
    fs.release()
  }
  const more = typeof openings === 'number' ? openings : await openings
  if (more === 0) return use
  return { ...use, roundTrips: use.roundTrips + more, connectRoundTrips: use.connectRoundTrips + more }
}

function reservationError(e: DriverError, flushId: string, timeoutMs: number): PipeflushError {
  if (e.code === 'DEADLINE') return errors.flushTimeout(flushId, timeoutMs, 'still waiting for a connection')
  const failure = connectFailure(e)
  if (failure !== undefined)
    return errors.cannotConnect(failure, 'The flush', e.message, {
      flushId,
      sqlState: e.sqlState,
      cause: e.cause,
    })
  if (e.kind === 'connection') return errors.noConnection(flushId, e.message, e.cause)
  return errors.reservationFailed(flushId, e.message, e.cause)
}
