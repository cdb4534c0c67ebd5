import type { Driver } from '../drivers/driver.ts'
import { errors } from '../errors.ts'
import { HeldTransaction } from './held-transaction.ts'
import { type ConnectionSource, poolSource } from './provide-connection.ts'

/** Where a flush of the unit of work gets its connection, and the locking transaction it commits. */
export interface FlushConnection {
  /** The source of the flush `flushId`'s connection: the open locking transaction, else the pool. */
  source(flushId: string): ConnectionSource
  /** The unit of work's open locking transaction, which the flush takes and commits. */
  readonly held: HeldTransaction | undefined
}

/**
 * Where one unit of work's statements get their connection: from the pool, or from the transaction
 * its first locking read began (`HeldTransaction`), which every later read of the unit of work joins
 * and its flush commits. Also whether it has written, after which its reads go to the primary (it
 * reads its own writes). One per entity manager; its flushes and its reads share it.
 *
 * @example
 * const connections = new UnitConnections(driver, 30_000)
 * const { source } = connections.forFlush() // source(flushId): the pool, or the locking transaction
 */
export class UnitConnections {
  readonly driver: Driver
  /** The pool of the primary, as a source. */
  readonly pool: ConnectionSource
  readonly #holdMs: number
  #held: HeldTransaction | undefined
  #wrote = false
  /** The flush being sent (see {@link beginSending}), and what settles its promise. */
  #sending: { readonly over: Promise<void>; readonly end: () => void } | undefined

  /** `holdMs`: the longest a locking transaction is held (`flushTimeoutMs`). */
  constructor(driver: Driver, holdMs: number) {
    this.driver = driver
    this.pool = poolSource(driver)
    this.#holdMs = holdMs
  }

  /** Whether a flush of the unit of work sent something (or may have): its reads go to the primary. */
  get wrote(): boolean {
    return this.#wrote
  }

  /**
   * The unit of work's flush being sent, from when its statements are planned (after its
   * `beforeFlush` hooks, which may read) until it is over ({@link flushed}): a promise that then
   * resolves, never rejects. The unit's reads started meanwhile go after it, reading what it wrote
   * (or what was there, when it failed), as they would on the one connection of a unit of work.
   */
  get sending(): Promise<void> | undefined {
    return this.#sending?.over
  }

  /** The unit of work's flush starts sending (see {@link sending}). */
  beginSending(): void {
    let end!: () => void
    const over = new Promise<void>((resolve) => {
      end = resolve
    })
    this.#sending = { over, end }
  }

  /** The unit of work's locking transaction: open, or ended and not yet told to a flush; else undefined. */
  get held(): HeldTransaction | undefined {
    return this.#held
  }

  /**
   * The locking transaction a read goes in: the open one, or for a `locking` read a new one it
   * begins; undefined when the read goes to a pool.
   */
  forRead(locking: boolean): HeldTransaction | undefined {
    if (this.#held?.open === true) return this.#held
    if (!locking) return undefined
    // One that ended without a flush stays until a flush is told (LOCKS_RELEASED); a new read begins anew.
    if (this.#held === undefined || this.#held.ended !== undefined)
      this.#held = new HeldTransaction(this.driver, this.#holdMs)
    return this.#held
  }

  /**
   * Before a flush: a locking transaction that ended before any flush took it (its locks are gone)
   * is told once, as `LOCKS_RELEASED`; the unit of work then flushes as one that never locked.
   * Returns the locking transaction as the flush begins (see {@link flushed}).
   */
  checkLocks(): HeldTransaction | undefined {
    const held = this.#held
    if (held !== undefined && !held.open && held.ended !== undefined) {
      this.#held = undefined
      throw errors.locksReleased(held.ended)
    }
    return held
  }

  /** Where a flush goes now: into the open locking transaction, else to the pool. */
  forFlush(): FlushConnection {
    const held = this.#held
    if (held?.open !== true) return { source: () => this.pool, held: undefined }
    return { source: (flushId) => held.taken(flushId), held }
  }

  /**
   * A flush is over (`failedWith`: its error code): a locking transaction (`held`, as it was when the
   * flush began) that the flush took is done with, and on failure later flushes are told its locks
   * are gone; `edits` > 0: something was written, or may have been, so reads go to the primary from
   * now on.
   */
  flushed(held: HeldTransaction | undefined, failedWith: string | undefined, edits: number): void {
    if (held !== undefined && held === this.#held) {
      if (failedWith === undefined) this.#held = undefined
      else if (!held.open && held.ended === 'taken by a flush') held.flushFailed(failedWith)
    }
    if (edits > 0) this.#wrote = true
    const sending = this.#sending
    this.#sending = undefined
    sending?.end()
  }

  /** Rolls back the locking transaction, if any (`EntityManager.clear`). */
  release(): Promise<void> {
    const held = this.#held
    this.#held = undefined
    return held === undefined ? Promise.resolve() : held.release()
  }
}
