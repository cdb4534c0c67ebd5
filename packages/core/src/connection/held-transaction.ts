import type { Driver, DriverError, Session } from '../drivers/driver.ts'
import { GuardedSession } from '../drivers/guarded-session.ts'
import { errors, type PipeflushError, redactError } from '../errors.ts'
import { type Purpose, reservationError } from './connection-errors.ts'
import type { ConnectionSource, Lease } from './provide-connection.ts'

/** A row lock a read takes (`for update`, `for share`). */
export type RowLock = 'update' | 'share'

/**
 * The transaction a unit of work's first locking read begins (`lock: 'update'`), held on one
 * connection until its flush commits it: BEGIN goes in the same round trip as the locking reads, every
 * later read of the unit of work runs in it, and the flush sends its statements and COMMIT on it
 * (without a BEGIN), so that a request that locks, decides and writes takes two round trips.
 *
 * As a {@link ConnectionSource} it lends its connection to reads, one at a time, keeping it between
 * them; {@link taken} lends it to the flush that commits it.
 *
 * It ends, its connection given back, when the flush takes it; when `clear()` drops the unit of work
 * (ROLLBACK); when a read in it fails; when it is held longer than `holdMs` (`flushTimeoutMs`: the
 * connection is closed, so the server rolls back at once, whatever the application is doing); and
 * when the unit of work is garbage-collected unflushed. A flush after it ended fails with
 * `LOCKS_RELEASED`, sending nothing.
 *
 * @example
 * const held = new HeldTransaction(driver, 30_000)
 * await provideConnection(held, use, (s, lease) => sendSelects(s, selects, { named, begin: lease.begins }))
 */
export class HeldTransaction implements ConnectionSource {
  readonly #driver: Driver
  readonly #holdMs: number
  #session: Session | undefined
  #timer: NodeJS.Timeout | undefined
  /** Why it ended; undefined while it has not begun or is open. */
  #ended: string | undefined
  /** The piece of work in progress: the next one (or the flush) waits for it. */
  #busy: Promise<unknown> = Promise.resolve()

  constructor(driver: Driver, holdMs: number) {
    this.#driver = driver
    this.#holdMs = holdMs
  }

  /** Whether BEGIN was sent and the transaction has not ended: the unit of work's reads go in it. */
  get open(): boolean {
    return this.#session !== undefined && this.#ended === undefined
  }

  /** Why the transaction ended before a flush took it; undefined when it did not. */
  get ended(): string | undefined {
    return this.#ended
  }

  /**
   * Its connection for one read, once the read before it is over; the first reserves the connection
   * (the read then begins the transaction: `begins`). A read that fails ends the transaction, its
   * locks with it.
   */
  async lease(deadline: number, purpose: Purpose): Promise<Lease> {
    const previous = this.#busy
    let done!: () => void
    this.#busy = new Promise<void>((resolve) => {
      done = resolve
    })
    await previous
    try {
      if (this.#ended !== undefined) throw errors.locksReleased(this.#ended)
      const begins = this.#session === undefined
      if (begins) this.#session = await this.#reserve(deadline, purpose)
      return {
        session: this.#session!,
        continued: !begins,
        begins,
        end: async (failure) => {
          if (failure !== undefined) await this.#end(`a read in it failed: ${failure.code}`, 'rollback')
          done()
        },
      }
    } catch (e) {
      done()
      throw e
    }
  }

  /**
   * A source lending the transaction's connection to the flush that commits it (once a read in
   * progress is over): `LOCKS_RELEASED` when the transaction ended. The transaction is then over for
   * the unit of work; a flush that fails rolls it back and gives the connection back.
   */
  taken(flushId: string): ConnectionSource {
    return {
      lease: async () => {
        const session = await this.take()
        if (session === undefined) throw errors.locksReleased(this.ended ?? 'it ended', flushId)
        return {
          session,
          continued: true,
          begins: false,
          end: async (failure: PipeflushError | undefined, s: GuardedSession) => {
            // A failed flush ends the transaction before its connection goes back (closed instead when
            // its server refused the write as read-only).
            if (failure !== undefined && failure.code !== 'READ_ONLY_SERVER' && s.usable)
              await s.simple('rollback').catch(() => {})
            s.release()
          },
        }
      },
    }
  }

  /**
   * The transaction's connection, for the flush that commits it (waiting for a read in progress); the
   * flush gives it back. Undefined when the transaction ended (see {@link ended}).
   */
  async take(): Promise<Session | undefined> {
    await this.#busy
    if (this.#session?.isEnded()) await this.#end('its connection was lost', 'close')
    if (!this.open) return undefined
    const session = this.#session
    this.#stopHold()
    this.#session = undefined
    this.#ended = 'taken by a flush'
    return session
  }

  /** The flush that took it failed (`code`): its locks are gone, as a later flush is told. */
  flushFailed(code: string): void {
    this.#ended = `a flush in it failed with ${code}`
  }

  /**
   * Ends the transaction of a unit of work that had nothing to write (COMMIT: the locks go), and
   * gives its connection back: the round trips that took.
   */
  async finish(timeoutMs: number): Promise<number> {
    const session = await this.take()
    if (session === undefined) return 0
    const deadline = Number.isFinite(timeoutMs) ? performance.now() + timeoutMs : Number.POSITIVE_INFINITY
    const gs = new GuardedSession(session, deadline, true)
    try {
      await gs.simple('commit', { rowSets: 0 })
    } catch {
      session.terminate() // it wrote nothing: closing it releases the locks as well
    } finally {
      gs.release()
    }
    return gs.roundTrips()
  }

  /** Rolls the transaction back and gives its connection back (a unit of work dropped with `clear()`). */
  async release(): Promise<void> {
    await this.#busy.catch(() => {})
    if (this.open) await this.#end('the unit of work was cleared', 'rollback')
  }

  async #reserve(deadline: number, purpose: Purpose): Promise<Session> {
    let session: Session
    try {
      session = await this.#driver.reserve({ deadline, admitted: purpose.admitted })
    } catch (e) {
      throw redactError(reservationError(this.#driver.toDriverError(e), purpose))
    }
    // Its connection lost while held: the server rolled it back; the flush is told, sending nothing.
    session.onEnd((cause) => {
      if (this.#session === session) void this.#end(connectionLost(cause), 'close')
    })
    this.#session = session
    this.#startHold()
    return session
  }

  #startHold(): void {
    // Garbage-collected unflushed (possible only without a hold limit: the timer keeps it alive): the
    // connection is closed.
    unflushed.register(this, this.#session!, this)
    if (!Number.isFinite(this.#holdMs)) return
    this.#timer = setTimeout(() => {
      void this.#end(`held longer than flushTimeoutMs (${this.#holdMs} ms)`, 'close')
    }, this.#holdMs)
    this.#timer.unref()
  }

  #stopHold(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    unflushed.unregister(this)
  }

  /** Ends the transaction: ROLLBACK when the connection can take it, else the connection is closed. */
  async #end(why: string, how: 'rollback' | 'close'): Promise<void> {
    const session = this.#session
    if (session === undefined || this.#ended !== undefined) return
    this.#ended = why
    this.#stopHold()
    this.#session = undefined
    if (how === 'rollback' && !session.isEnded()) {
      const gs = new GuardedSession(session, performance.now() + 5000)
      try {
        await gs.simple('rollback', { rowSets: 0 })
      } catch {
        session.terminate()
      }
    } else {
      session.terminate()
    }
    session.release()
  }
}

/** Held transactions of units of work collected unflushed: their connections are closed. */
const unflushed = new FinalizationRegistry<Session>((session) => {
  session.terminate()
  session.release()
})

/**
 * Why a held transaction ended with its connection, the server's reason first where it gave one: an
 * operator's `idle_in_transaction_session_timeout` (25P03) or a terminated backend (57P01) is
 * something to act on, not the network.
 */
function connectionLost(cause: DriverError | undefined): string {
  if (cause?.sqlState === undefined) return 'its connection was lost'
  return `its connection was closed by the server: ${cause.message} (SQLSTATE ${cause.sqlState})`
}
