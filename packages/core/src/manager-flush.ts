import type { UnitConnections } from './connection/unit-connections.ts'
import { errors, isPipeflushError } from './errors.ts'
import type { FlushReport } from './flush/flush-report.ts'
import { flushUnitOfWork } from './flush/flush-unit-of-work.ts'
import { afterCommitHook, beforeFlushHooks } from './hooks/run-hooks.ts'
import { FlushObservation } from './observe/observe-flush.ts'
import type { Settings } from './settings.ts'
import type { UnitOfWork } from './unit-of-work/unit-of-work.ts'

/**
 * An entity manager's flushes: one at a time, each as these steps, in the order they run:
 * 1. the locking transaction checked (one that ended unflushed is told once: `LOCKS_RELEASED`);
 * 2. a span opened (the flush's observation, around every later step);
 * 3. the before-flush hooks;
 * 4. the flush (`flushUnitOfWork`), into the locking transaction if one is open, else on the pool;
 *    on failure, what the hooks changed is taken back;
 * 5. what the flush leaves for the reads (`UnitConnections.flushed`: the transaction it took, whether
 *    it wrote);
 * 6. the after-commit hook, once the flush is over (so that it may change and flush this unit of work
 *    again), inside the span;
 * 7. the span ended.
 * Apart from `entity-manager.ts` so that the facade keeps to its public methods.
 *
 * @example
 * const flushes = new ManagerFlush(uow, settings, connections)
 * const report = await flushes.flush(em)
 */
export class ManagerFlush {
  readonly #uow: UnitOfWork
  readonly #settings: Settings
  readonly #connections: UnitConnections
  #flushing = false

  constructor(uow: UnitOfWork, settings: Settings, connections: UnitConnections) {
    this.#uow = uow
    this.#settings = settings
    this.#connections = connections
  }

  /**
   * Writes every pending change of the unit of work (`EntityManager.flush`); `em`, the entity manager,
   * is what the hooks are given.
   */
  async flush(em: unknown): Promise<FlushReport> {
    if (this.#flushing) throw errors.flushRunning()
    const settings = this.#settings
    const { hooks } = settings
    const held = this.#connections.checkLocks()
    const observed = new FlushObservation(settings.observe, settings)
    this.#flushing = true
    // From here the flush may write rows past the entities, until #over (see UnitOfWork.beginFlush).
    this.#uow.beginFlush()
    let report: FlushReport
    try {
      const flush = () => {
        // The unit's reads started from here go once the flush is over (see UnitConnections.sending).
        this.#connections.beginSending()
        return flushUnitOfWork(this.#uow, settings, {
          onPlanned: observed.onPlanned,
          connection: this.#connections.forFlush(),
        })
      }
      report = await observed.within(
        hooks === undefined
          ? flush // no hooks: no step around the flush (a frame and its promise less)
          : async () => {
              const undoHooks = await beforeFlushHooks(this.#uow, hooks, em, observed.traced)
              try {
                return await flush()
              } catch (e) {
                undoHooks()
                throw e
              }
            },
      )
    } catch (e) {
      this.#over(held, isPipeflushError(e) ? e.code : 'an error')
      observed.failed(e)
      throw e
    }
    this.#over(held, undefined)
    observed.succeeded(report)
    if (hooks !== undefined)
      report = await observed.within(() => afterCommitHook(hooks, report, em, observed.traced))
    observed.end()
    return report
  }

  /** The flush is over (failed with `failedWith`, a code): its connections told, the next flush may start. */
  #over(held: ReturnType<UnitConnections['checkLocks']>, failedWith: string | undefined): void {
    this.#flushing = false
    this.#uow.endFlush()
    // Something was changed and flushed (or may have been: an unknown outcome): read it back from the
    // primary from now on.
    this.#connections.flushed(held, failedWith, this.#uow.edits)
  }
}
