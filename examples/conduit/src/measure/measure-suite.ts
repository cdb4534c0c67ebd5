import type { RunningConduit } from '../app.ts'
import { runSuite, type SuiteResult } from '../suite/run-suite.ts'

/** One request of one run of the suite, as the server saw it. */
export interface EndpointSample {
  /** The request's name in the collection (`Single Article by slug`). */
  readonly name: string
  /** Its route (`GET /api/articles/:slug`). */
  readonly route: string
  readonly status: number
  /** Round trips counted at the pool's sockets while it ran (reads, plain queries, flush). */
  readonly roundTrips: number
  /** Its flush (pipeflush only): the report's round trips, the socket's count of them, whether ids were fetched. */
  readonly flush:
    | { readonly roundTrips: number; readonly socket: number | undefined; readonly idFetch: boolean }
    | undefined
  /** From the request's arrival to its answer's end, in ms. */
  readonly ms: number
}

/** A measured run: the suite's result and each request's sample, in the suite's order. */
export interface MeasuredRun {
  readonly suite: SuiteResult
  readonly samples: readonly EndpointSample[]
}

/**
 * Runs the suite against `conduit` and pairs each request newman sent with what the server recorded
 * for it (requests go one at a time, so in the same order). The suite must have been given the
 * whole pool: any other use of it would be counted too.
 *
 * @example
 * const { suite, samples } = await measureSuite(conduit, collection.path)
 * samples[15] // { name: 'Single Article by slug', route: 'GET /api/articles/:slug', roundTrips: 2, ... }
 */
export async function measureSuite(conduit: RunningConduit, collectionPath: string): Promise<MeasuredRun> {
  conduit.log.clear()
  const suite = await runSuite(collectionPath, conduit.apiUrl)
  const records = conduit.log.records
  if (records.length !== suite.requests.length) {
    throw new Error(`newman sent ${suite.requests.length} requests, the server answered ${records.length}`)
  }
  const samples = suite.requests.map((request, i) => {
    const record = records[i]!
    if (record.method !== request.method || record.roundTrips === undefined) {
      throw new Error(
        `request ${i + 1} (${request.name}) could not be attributed: ${record.method} ${record.url}`,
      )
    }
    const [flush, ...more] = record.flushes
    if (more.length > 0) throw new Error(`${request.name} flushed ${record.flushes.length} times`)
    return {
      name: request.name,
      route: record.route ?? `${record.method} ${record.url}`,
      status: record.status,
      roundTrips: record.roundTrips,
      flush: flush && {
        roundTrips: flush.report.roundTrips,
        socket: flush.socketRoundTrips,
        idFetch: flush.report.idFetch,
      },
      ms: record.ms,
    }
  })
  return { suite, samples }
}
