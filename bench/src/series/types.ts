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
  'mikroorm',
  'pg-pipeline',
  'copy',
] as const

export type SeriesName = (typeof SERIES_NAMES)[number]

/** The parts of a run a series can take part in. */
export type Scenario = 'matrix' | 'large' | 'concurrency'

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
  /** Ends every connection. */
  close(): Promise<void>
}

/** A library's own account of a flush (pipeflush's `FlushReport`). */
export interface LibraryReport {
  readonly roundTrips: number
  /** An id block was fetched first (one more round trip). */
  readonly idFetch: boolean
  /** Some statement was not prepared yet on the connection. */
  readonly cold: boolean
}

/** One way of writing the unit of work (a driver used a certain way, or an ORM). */
export interface Series {
  readonly name: SeriesName
  /** One line on how the series sends the transaction. */
  readonly description: string
  readonly scenarios: readonly Scenario[]
  /** Undefined when the series can run here, else why it cannot (shown in every output). */
  unavailableReason(): Promise<string | undefined>
  /** Opens a client with a connection established (so the first flush measures cold statements, not connecting). */
  open(target: Target, options: OpenOptions): Promise<SeriesClient>
}

/** The scenarios of every series except `copy`. */
export const ALL_SCENARIOS: readonly Scenario[] = ['matrix', 'large', 'concurrency']
