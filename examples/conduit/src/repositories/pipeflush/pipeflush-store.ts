import { isPipeflushError, type PipelineMode } from '@pipeflush/core'
import type { EntityManagerFactory } from '@pipeflush/kysely'
import type { RoundTripCounter } from '@pipeflush/testkit'
import type { Relations } from '../../relations.ts'
import type { DB } from '../../schema.ts'
import type { RequestObserver, Store } from '../store.ts'
import type { Repositories } from '../types.ts'
import { uniqueViolationOf } from '../unique-violation.ts'
import { reloadStored } from './reload-stored.ts'
import { pipeflushRepositories } from './repositories.ts'

/** Runs of a request's work at most, when its flush meets a row another request changed meanwhile. */
const MAX_ATTEMPTS = 3

/** Options of {@link PipeflushStore}. */
export interface PipeflushStoreOptions {
  /** The flushes' pipeline mode (default: the factory's). */
  readonly pipeline?: PipelineMode
  /**
   * The pool's round-trip counter: each flush is then counted at the socket too, beside its report
   * (meaningful while requests run one at a time).
   */
  readonly counter?: RoundTripCounter
}

/**
 * Conduit on pipeflush: each request's work gets the repositories of a new unit of work
 * (`factory.em()`), reads, decides, and its writes go in one flush when the work returns: read,
 * decide, flush.
 *
 * @example
 * const store = new PipeflushStore(factory, { pipeline: 'burst' })
 * const user = await store.run(({ users }) => users.byId(1))
 */
export class PipeflushStore implements Store {
  readonly name: string
  readonly #factory: EntityManagerFactory<DB, Relations>
  readonly #options: PipeflushStoreOptions

  constructor(factory: EntityManagerFactory<DB, Relations>, options: PipeflushStoreOptions = {}) {
    this.#factory = factory
    this.#options = options
    this.name = `pipeflush (${options.pipeline ?? 'burst'})`
  }

  async run<T>(work: (repositories: Repositories) => Promise<T>, observer?: RequestObserver): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#attempt(work, observer)
      } catch (e) {
        // A row this request removes or changes was removed or changed by another request meanwhile
        // (two unfavorites of one article at once), or a row it references was removed, or one it
        // removes got a new reference (a favorite of an article being deleted): the work runs again on
        // what is stored now, which decides anew (nothing left to remove, or a 404), as a plain
        // transaction reading first would. So too when a locking read's transaction ended before the
        // flush committed (its connection lost before the COMMIT's answer, nothing committed): its
        // locks are gone, and the work reads again with them.
        if (attempt < MAX_ATTEMPTS && isRaced(e)) continue
        throw e
      }
    }
  }

  async #attempt<T>(
    work: (repositories: Repositories) => Promise<T>,
    observer?: RequestObserver,
  ): Promise<T> {
    const { pipeline, counter } = this.#options
    const em = this.#factory.em(pipeline === undefined ? {} : { pipeline })
    let result: T
    try {
      result = await work(pipeflushRepositories(em))
    } catch (e) {
      // A request that decides not to write (a 404, a 403) after a locking read: its locks released now.
      await em.clear()
      throw e
    }
    const before = counter?.read().roundTrips
    for (let flush = 1; ; flush++) {
      try {
        const report = await em.flush()
        const after = counter?.read().roundTrips
        observer?.flushed({
          report,
          socketRoundTrips: before === undefined || after === undefined ? undefined : after - before,
        })
        return result
      } catch (e) {
        // The connection was lost after the COMMIT was sent: the flush log says whether it committed
        // (the request then succeeded: a 500 would have the client retry work that is stored; its
        // answer is built from the rows as stored, which the failed flush did not read back), else
        // nothing was, and the unit of work, as it was, is flushed again.
        if (isPipeflushError(e, 'COMMIT_OUTCOME_UNKNOWN') && e.flushId !== undefined) {
          if (await committed(em, e.flushId))
            return await asked(() => reloadStored(em, this.#factory.em(), result))
          if (flush < MAX_ATTEMPTS) continue
        }
        throw uniqueViolationOf(e) ?? e
      }
    }
  }
}

/** Times the flush log is asked at most, and the pause before asking again (ms). */
const LOG_ASKS = 3
const LOG_PAUSE_MS = 200

/**
 * Whether the flush `flushId` committed, by the flush log (`em.wasCommitted`). Asked again after a
 * pause when asking fails (see {@link asked}). Still failing, the outcome stays unknown: that error
 * is the request's (a 500).
 */
function committed(em: { wasCommitted(flushId: string): Promise<boolean> }, flushId: string) {
  return asked(() => em.wasCommitted(flushId))
}

/**
 * `ask()`, asked again after a pause when it fails, up to {@link LOG_ASKS} times: the network that
 * cut the flush's connection may cut the next one too for a moment.
 */
async function asked<T>(ask: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ask()
    } catch (e) {
      if (attempt >= LOG_ASKS) throw e
      await new Promise((resolve) => setTimeout(resolve, LOG_PAUSE_MS * attempt))
    }
  }
}

/**
 * Whether `e` is a flush that met another request's commit, or whose locking read's transaction
 * ended (see `PipeflushStore.run`).
 */
function isRaced(e: unknown): boolean {
  if (isPipeflushError(e, 'OPTIMISTIC_LOCK') || isPipeflushError(e, 'LOCKS_RELEASED')) return true
  // A foreign key: a row referenced gone, or a row removed still referenced.
  return isPipeflushError(e, 'CONSTRAINT_VIOLATION') && e.sqlState === '23503'
}
