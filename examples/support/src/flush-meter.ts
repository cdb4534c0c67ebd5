import type { FlushReport } from '@pipeflush/core'
import type { EntityManagerFactory, RunOptions, RunResult, TypedEntityManager } from '@pipeflush/kysely'
import type { RoundTripCounter } from '@pipeflush/testkit'

/** What the examples use of an entity-manager factory: its Kysely instance, `em()` and `run()`. */
export type UnitOfWorkFactory<DB> = Pick<EntityManagerFactory<DB>, 'db' | 'em' | 'run'>

/** A flush's report beside what the pool's socket counter saw while it ran. */
export interface MeteredFlush {
  readonly report: FlushReport
  /**
   * Round trips the pool's counter saw from the end of the work to the end of its flush; undefined
   * when another run was in flight at the same time (the counter covers the whole pool).
   */
  readonly socketRoundTrips: number | undefined
}

/**
 * A factory whose `run()` flushes are checked against the pool's socket counter: the report's
 * `roundTrips` must equal what the counter saw during the flush. A mismatch is printed loudly
 * (`onMismatch`) and kept in `mismatches`. Only runs alone on the pool can be checked; `em()` is
 * handed through unmetered. Do not reset the counter while a run is in flight.
 *
 * @example
 * const meter = new FlushMeter(factory, app.counter)
 * const { report } = await meter.run((em) => em.create('author', { name: 'Ada' }))
 * meter.of(report) // { report, socketRoundTrips: 1 }
 * meter.summary() // 'all 1 checked flush reports equal the socket count'
 */
export class FlushMeter<DB> implements UnitOfWorkFactory<DB> {
  readonly #factory: EntityManagerFactory<DB>
  readonly #counter: RoundTripCounter
  readonly #onMismatch: (flush: MeteredFlush) => void
  readonly #active = new Set<{ overlapped: boolean }>()
  readonly #flushes = new Map<string, MeteredFlush>()
  readonly #mismatches: MeteredFlush[] = []
  #checked = 0

  constructor(
    factory: EntityManagerFactory<DB>,
    counter: RoundTripCounter,
    onMismatch: (flush: MeteredFlush) => void = (f) => console.error(`\n${describeSocketCheck(f)}\n`),
  ) {
    this.#factory = factory
    this.#counter = counter
    this.#onMismatch = onMismatch
  }

  get db(): EntityManagerFactory<DB>['db'] {
    return this.#factory.db
  }

  /** A new unit of work from the factory (its flushes are not metered). */
  em(options: { pipeline?: RunOptions['pipeline'] } = {}): TypedEntityManager<DB> {
    return this.#factory.em(options)
  }

  /** The factory's `run()`, its flush counted at the socket and checked against the report. */
  async run<R>(
    work: (em: TypedEntityManager<DB>) => Promise<R> | R,
    options: RunOptions = {},
  ): Promise<RunResult<R>> {
    const state = { overlapped: this.#active.size > 0, before: 0 }
    for (const other of this.#active) other.overlapped = true
    this.#active.add(state)
    try {
      const run = await this.#factory.run(async (em) => {
        const result = await work(em)
        state.before = this.#counter.read().roundTrips // what follows is the flush
        return result
      }, options)
      const socket = state.overlapped ? undefined : this.#counter.read().roundTrips - state.before
      this.#record({ report: run.report, socketRoundTrips: socket })
      return run
    } finally {
      this.#active.delete(state)
    }
  }

  /** The metered flush of `report` (from a `run()` of this meter), if any. */
  of(report: FlushReport | undefined): MeteredFlush | undefined {
    return report === undefined ? undefined : this.#flushes.get(report.flushId)
  }

  /** The checked flushes whose report differs from the socket count. */
  get mismatches(): readonly MeteredFlush[] {
    return this.#mismatches
  }

  /** One line: how many flushes were checked, and whether every report equalled the socket count. */
  summary(): string {
    const n = this.#mismatches.length
    if (n === 0) return `all ${this.#checked} checked flush reports equal the socket count`
    return `!!! ${n} of ${this.#checked} checked flush reports DIFFER from the socket count !!!`
  }

  #record(flush: MeteredFlush): void {
    this.#flushes.set(flush.report.flushId, flush)
    if (flush.socketRoundTrips === undefined) return
    this.#checked++
    if (flush.socketRoundTrips !== flush.report.roundTrips) {
      this.#mismatches.push(flush)
      this.#onMismatch(flush)
    }
  }
}

/**
 * How a flush's report compares with the socket: `socket: 1` when they agree, a loud line when they
 * differ, `socket: not counted (concurrent)` when the flush could not be attributed.
 *
 * @example
 * describeSocketCheck({ report, socketRoundTrips: 1 }) // 'socket: 1' when report.roundTrips is 1
 */
export function describeSocketCheck(flush: MeteredFlush | undefined): string {
  if (flush === undefined) return 'socket: not counted'
  const { report, socketRoundTrips: socket } = flush
  if (socket === undefined) return 'socket: not counted (concurrent)'
  if (socket === report.roundTrips) return `socket: ${socket}`
  return (
    `!!! MISMATCH: flush ${report.flushId} (${report.driver}, ${report.mode}) reports ` +
    `${report.roundTrips} round trips, the socket counted ${socket} !!!`
  )
}
