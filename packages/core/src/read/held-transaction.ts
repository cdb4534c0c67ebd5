import type { Driver, Param, Row, Session } from '../drivers/driver.ts'
import { GuardedSession } from '../drivers/guarded-session.ts'
import { inlineParams } from '../drivers/inline-params.ts'
import { errors } from '../errors.ts'
import { redactError } from '../flush/redact.ts'
import { readError, reservationError } from './read-errors.ts'

/** One select: its text and text parameters (`$1`...), as the read batch has it. */
interface Statement {
  readonly text: string
  readonly params: readonly Param[]
}

/** A row lock a read takes (`for update`, `for share`). */
export type RowLock = 'update' | 'share'

/**
 * The transaction a unit of work's first locking read begins (`lock: 'update'`), held on one
 * connection until its flush commits it: BEGIN goes in the same round trip as the locking reads, every
 * later read of the unit of work runs in it, and the flush sends its statements and COMMIT on it
 * (without a BEGIN), so that a request that locks, decides and writes takes two round trips.
 *
 * It ends, its connection given back, when the flush takes it; when `clear()` drops the unit of work
 * (ROLLBACK); when a read in it fails; when it is held longer than `holdMs` (`flushTimeoutMs`: the
 * connection is closed, so the server rolls back at once, whatever the application is doing); and
 * when the unit of work is garbage-collected unflushed. A flush after it ended fails with
 * `LOCKS_RELEASED`, sending nothing.
 */
export class HeldTransaction {
  readonly #driver: Driver
  readonly #holdMs: number
  #session: Session | undefined
  #timer: NodeJS.Timeout | undefined
  /** Why it ended; undefined while it has not begun or is open. */
  #ended: string | undefined
  /** The exchange in progress: the next one (or the flush) waits for it. */
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
   * `statements` in the transaction, in one round trip; the first call reserves the connection and
   * sends BEGIN in front of them. A failure ends the transaction (its locks with it).
   */
  read(statements: readonly Statement[], what: string, timeoutMs: number): Promise<(readonly Row[])[]> {
    const run = this.#busy.then(() => this.#read(statements, what, timeoutMs))
    this.#busy = run.catch(() => {})
    return run
  }

  async #read(
    statements: readonly Statement[],
    what: string,
    timeoutMs: number,
  ): Promise<(readonly Row[])[]> {
    if (this.#ended !== undefined) throw errors.locksReleased(this.#ended)
    const deadline = Number.isFinite(timeoutMs) ? performance.now() + timeoutMs : Number.POSITIVE_INFINITY
    const begin = this.#session === undefined
    if (begin) {
      try {
        this.#session = await this.#driver.reserve({ deadline })
      } catch (e) {
        throw redactError(reservationError(this.#driver.toDriverError(e), what, timeoutMs))
      }
      const session = this.#session
      // Its connection lost while held: the server rolled it back; the flush is told, sending nothing.
      void session.ended.then(() => {
        if (this.#session === session) void this.#end('its connection was lost', 'close')
      })
      this.#startHold()
    }
    const gs = new GuardedSession(this.#session!, deadline)
    try {
      if (!gs.session.pipeline) {
        const texts = statements.map((s) => inlineParams(s.text, s.params))
        const text = (begin ? ['begin', ...texts] : texts).join(';\n')
        return [...(await gs.simple(text, { rowSets: statements.length })).rowSets]
      }
      const sent = statements.map((s) => ({ text: s.text, params: s.params }))
      const results = await gs.pipeline(begin ? [{ text: 'begin', params: [] }, ...sent] : sent)
      return results.slice(begin ? 1 : 0).map((r) => {
        if (r.status === 'rejected') throw r.reason
        return r.value.rows
      })
    } catch (e) {
      const error = redactError(readError(e, what, timeoutMs))
      await this.#end(`a read in it failed: ${error.code}`, 'rollback')
      throw error
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
