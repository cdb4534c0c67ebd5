import type { Driver, Session } from '../drivers/driver.ts'
import type { GuardedSession } from '../drivers/guarded-session.ts'
import { type PipeflushError, redactError } from '../errors.ts'
import { type Purpose, reservationError } from './connection-errors.ts'
import { deadlineOf } from './deadline.ts'

/** A connection lent to one piece of work, and how it goes back. */
export interface Lease {
  readonly session: Session
  /**
   * The connection was reserved before this work (a locking read's transaction): round trips count
   * from now, and no opening is this work's.
   */
  readonly continued: boolean
  /**
   * The connection's transaction is to begin with this work: BEGIN goes in front of its statements (the
   * first locking read of a unit of work).
   */
  readonly begins: boolean
  /**
   * Gives the connection back once the work is over, `failure` when it failed (coded): to the pool,
   * kept for the transaction that holds it, or ended with it.
   */
  end(failure: PipeflushError | undefined, session: GuardedSession): void | Promise<void>
}

/**
 * Where a unit of work's statements get a connection: the pool (each piece of work reserves one), or
 * a connection held across pieces of work (a locking read's transaction: `HeldTransaction`). Kysely's
 * `ConnectionProvider`, of which a transaction is a `SingleConnectionProvider`.
 */
export interface ConnectionSource {
  /** A connection by `deadline`; a coded error (secrets redacted) when none can be had for `purpose`. */
  lease(deadline: number, purpose: Purpose): Promise<Lease>
}

/** What work is done on a connection: its purpose, the session it runs on, how its failures read. */
export interface ConnectionUse<S extends GuardedSession> extends Purpose {
  /** The session the work runs on, over the lent connection (a flush's knows its transaction). */
  session(session: Session, deadline: number, continued: boolean): S
  /** The work's failure, coded: a flush's by the commit-outcome rules, a read's as a select's. */
  failure(error: unknown, session: S): PipeflushError
}

/**
 * Runs `work` on a connection of `source`, within `use.timeoutMs` (the wait for the connection
 * included), then gives the connection back. Every error leaving is a coded `PipeflushError`, secrets
 * redacted: the reservation's by {@link reservationError}, the work's by `use.failure`. A
 * connection whose work failed on an exception of its own code (`INTERNAL_ERROR`) is closed, not
 * given back. A connection whose server refused a write as read-only (a standby, as after a
 * failover to a pool that still holds connections to the old primary) is closed, not given back: it
 * would refuse every later write.
 *
 * Flushes, read batches and a locking read's transaction all get their connection here.
 *
 * @example
 * const rows = await provideConnection(poolSource(driver), readUse('Reading book', 30_000), (s, lease) =>
 *   sendSelects(s, [{ text: 'select 1', params: [] }], { named: false, begin: lease.begins }),
 * )
 */
export async function provideConnection<S extends GuardedSession, T>(
  source: ConnectionSource,
  use: ConnectionUse<S>,
  work: (session: S, lease: Lease) => Promise<T>,
): Promise<T> {
  const deadline = deadlineOf(use.timeoutMs)
  const lease = await source.lease(deadline, use)
  const session = use.session(lease.session, deadline, lease.continued)
  let value: T
  try {
    value = await work(session, lease)
  } catch (e) {
    const error = redactError(use.failure(e, session))
    // An exception of code the work ran (INTERNAL_ERROR) may leave the connection anywhere, inside a
    // transaction of a flush's waves: closed, the server rolls that back; given back, the pool's next
    // user would commit it.
    if (error.code === 'READ_ONLY_SERVER' || error.code === 'INTERNAL_ERROR') session.session.terminate()
    await lease.end(error, session)
    throw error
  }
  // The pool's lease ends at once (no promise): nothing to wait for, no microtask more.
  const ended = lease.end(undefined, session)
  if (ended !== undefined) await ended
  return value
}

/**
 * The pool of `driver` as a source: each piece of work reserves a connection and gives it back (the
 * driver discards one that ended or was terminated).
 *
 * @example
 * await provideConnection(poolSource(driver), use, work)
 */
export function poolSource(driver: Driver): ConnectionSource {
  return {
    lease(deadline, purpose) {
      return driver.reserve({ deadline, admitted: purpose.admitted }).then(
        (session): Lease => ({ session, continued: false, begins: false, end: () => session.release() }),
        (e: unknown) => {
          throw redactError(reservationError(driver.toDriverError(e), purpose))
        },
      )
    },
  }
}
