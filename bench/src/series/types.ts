import type { RoundTripCounter } from '@pipeflush/testkit'
import type { Work } from '../workload.ts'

/** Every series, in the order they are run and shown. */
export const SERIES_NAMES = [
  'raw-sequential',
  'raw-string-array',
  'raw-promise-all',
  'pipeflush-off',
  'pipeflush-waves',
  'pipeflush-burst',
  'pipeflush-burst-traced',
  'pipeflush-burst-tracing-false',
  'pipeflush-drizzle',
  'mikroorm',
  'drizzle',
  'pg-pipeline',
  'raw-pg',
  'raw-pipeline',
  'raw-simple',
  'copy',
] as const

export type SeriesName = (typeof SERIES_NAMES)[number]

/** The PostgreSQL client a series runs on: postgres.js (the `postgres` package) or node-postgres (`pg`). */
export type DriverName = 'postgres.js' | 'pg'

/** The drivers, in the order they are shown. */
export const DRIVERS: readonly DriverName[] = ['postgres.js', 'pg']

/** The parts of a run a series can take part in. */
export type Scenario = 'matrix' | 'large' | 'concurrency' | 'cpu'

/** Where the series connect: the benchmark database, through the toxiproxy proxy. */
export interface Target {
  readonly url: string
}

export interface OpenOptions {
  /** Connections the client may open (1 for the matrix, the pool size for the concurrency run). */
  readonly pool: number
}

/** An open client of one series: flushes units of work and counts round trips at its sockets. */
export interface SeriesClient {
  /** Writes `work` in one transaction. Resolves once it is committed. */
  flush(work: Work): Promise<void>
  readonly counter: Pick<RoundTripCounter, 'read' | 'reset'>
  /** What the library itself reported about its last flush, when it reports anything (pipeflush). */
  lastReport?(): LibraryReport | undefined
  /**
   * Called before this client's flushes when the clients of several series take turns in one process
   * (the CPU cells, warm-up included): sets globally what the series needs (the traced series: their
   * tracer provider). Without it the client flushes as any other.
   */
  beginTurn?(): void
  /** Called after them: undoes `beginTurn`, returns the spans recorded during the turn. */
  endTurn?(): number
  /**
   * Untimed, before each flush of a shop cell (`work.shop`, CPU scenario): makes the next unit of work
   * (loads rows, creates and changes them, or plans the statements), which the next `flush` sends.
   */
  prepare?(work: Work): Promise<void>
  /**
   * Plans the prepared unit without sending it (`em.plan()`), untimed: a diagnostic of what a flush
   * pays for its planner's code and data being out of the CPU's caches (`pair-cpu.ts --preplan`).
   * pipeflush's shop cells only.
   */
  planPrepared?(): void
  /** One autocommit query's rows (for the backend's process id; counted by the counter too). */
  query(text: string): Promise<readonly Record<string, unknown>[]>
  /** Ends every connection. */
  close(): Promise<void>
}

/** A library's own account of a flush (pipeflush's `FlushReport`). */
export interface LibraryReport {
  /** Round trips the flush waited for, opening a connection and fetching ids included. */
  readonly roundTrips: number
  /** Of `roundTrips`, those of opening a connection for the flush. */
  readonly connectRoundTrips: number
  /** A connection was opened for this flush. */
  readonly connected: boolean
  /** An id block was fetched first (one more round trip). */
  readonly idFetch: boolean
}

/** One way of writing the unit of work (a driver used a certain way, or an ORM). */
export interface Series {
  readonly name: SeriesName
  readonly driver: DriverName
  /** `name`, or `name (driver)` for the series that run on both drivers: unique among all series. */
  readonly id: string
  /** One line on how the series sends the transaction. */
  readonly description: string
  readonly scenarios: readonly Scenario[]
  /** Undefined when the series can run here, else why it cannot (shown in every output). */
  unavailableReason(): Promise<string | undefined>
  /** Opens a client with a connection established (so the first flush measures cold statements, not connecting). */
  open(target: Target, options: OpenOptions): Promise<SeriesClient>
}

/** The scenarios of the series that write any unit of work (all but `copy` and the same-statement series). */
export const ALL_SCENARIOS: readonly Scenario[] = ['matrix', 'large', 'concurrency']

/** Series names that exist on both drivers (their id carries the driver). */
const ON_BOTH: ReadonlySet<SeriesName> = new Set([
  'pipeflush-drizzle',
  'drizzle',
  'pipeflush-off',
  'pipeflush-waves',
  'pipeflush-burst',
  'pipeflush-burst-traced',
  'pipeflush-burst-tracing-false',
  'raw-pipeline',
  'raw-simple',
])

/**
 * The id (and label) of a series on a driver: its name, with the driver for series on both drivers.
 *
 * @example
 * seriesId('pipeflush-burst', 'pg') // 'pipeflush-burst (pg)'
 * seriesId('mikroorm', 'pg') // 'mikroorm'
 */
export function seriesId(name: SeriesName, driver: DriverName): string {
  return ON_BOTH.has(name) ? `${name} (${driver})` : name
}

/**
 * Orders rows or series by name (as in {@link SERIES_NAMES}), then driver (postgres.js first).
 *
 * @example
 * rows.sort(bySeries)
 */
export function bySeries(
  a: { readonly series?: SeriesName; readonly name?: SeriesName; readonly driver: DriverName },
  b: { readonly series?: SeriesName; readonly name?: SeriesName; readonly driver: DriverName },
): number {
  const index = (x: typeof a) => SERIES_NAMES.indexOf((x.series ?? x.name) as SeriesName)
  return index(a) - index(b) || DRIVERS.indexOf(a.driver) - DRIVERS.indexOf(b.driver)
}
