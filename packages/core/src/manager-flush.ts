import type { ClientContext } from './client-context.ts'
import { errors, isPipeflushError } from './errors.ts'
import type { FlushReport } from './flush/flush-report.ts'
import { flushUnitOfWork } from './flush/flush-unit-of-work.ts'
import { withAfterCommit, withBeforeHooks } from './hooks/run-hooks.ts'
import type { ManagerSettings } from './manager-settings.ts'
import { observeFlush } from './observe/observe-flush.ts'
import { HeldTransaction } from './read/held-transaction.ts'
import type { ReadContext } from './read/read-batch.ts'
import type { UnitOfWork } from './unit-of-work/unit-of-work.ts'

/**
 * An entity manager's flushes and what they leave for its reads: one flush at a time, with the
 * hooks around it; the transaction a locking read began, until a flush takes it; and whether a
 * flush wrote (its reads go to the primary from then on). Apart from `entity-manager.ts` so that the
 * facade keeps to its public methods.
 */
export class ManagerFlush {
  readonly #uow: UnitOfWork
  readonly #client: ClientContext
  readonly #settings: ManagerSettings
  #flushing = false
  /** A flush of this unit of work sent something: its reads go to the primary (read your writes). */
  #wrote = false
  /** The transaction the first locking read began, until a flush commits it (see `HeldTransaction`). */
  #held: HeldTransaction | undefined

  constructor(uow: UnitOfWork, client: ClientContext, settings: ManagerSettings) {
    this.#uow = uow
    this.#client = client
    this.#settings = settings
  }

  /**
   * Writes every pending change of the unit of work (`EntityManager.flush`); `em`, the entity manager,
   * is what the hooks are given.
   */
  async flush(em: unknown): Promise<FlushReport> {
    if (this.#flushing) {
      throw errors.flushRunning()
    }
    const held = this.#held
    if (held !== undefined && !held.open && held.ended !== undefined) {
      // Told once; the unit of work then flushes as one that never locked.
      this.#held = undefined
      throw errors.locksReleased(held.ended)
    }
    const { hooks } = this.#client
    const subject = { driver: this.#client.driver, mode: this.#settings.mode }
    this.#flushing = true
    let report: FlushReport
    try {
      report = await observeFlush(this.#settings.observe, subject, (onPlanned) => {
        const flush = () =>
          flushUnitOfWork(this.#uow, {
            ...this.#client,
            ...this.#settings,
            onPlanned,
            held: this.#held?.open ? this.#held : undefined,
          })
        const traced = !this.#settings.observe.noSpans
        return hooks === undefined ? flush() : withBeforeHooks(this.#uow, hooks, em, flush, traced)
      })
      if (this.#held === held) this.#held = undefined
    } catch (e) {
      // A flush that took the locking transaction and failed: its locks are gone, as the next flush is told.
      if (held !== undefined && held === this.#held && !held.open && held.ended === 'taken by a flush')
        held.flushFailed(isPipeflushError(e) ? e.code : 'an error')
      throw e
    } finally {
      this.#flushing = false
      // Something was changed and flushed (or may have been: an unknown outcome): read it back from the
      // primary from now on.
      if (this.#uow.edits > 0) this.#wrote = true
    }
    // After the flush is over, so that afterCommit may change and flush this unit of work again.
    return hooks === undefined ? report : withAfterCommit(hooks, report, em, !this.#settings.observe.noSpans)
  }

  /** Rolls back the transaction a locking read began, if any (`EntityManager.clear`). */
  releaseHeld(): Promise<void> {
    const held = this.#held
    this.#held = undefined
    return held === undefined ? Promise.resolve() : held.release()
  }

  /** How reads run: on the client, within the flush timeout. */
  readContext(): ReadContext {
    return {
      driver: this.#client.driver,
      timeoutMs: this.#settings.timeoutMs,
      named: this.#client.named,
      observe: this.#settings.observe,
      replicas: this.#settings.replicas,
      primaryOnly: () => this.#wrote,
      held: () => {
        this.#held ??= new HeldTransaction(this.#client.driver, this.#settings.timeoutMs)
        return this.#held
      },
    }
  }
}
