import {
  type CheckedFlush,
  CONDUIT_REQUESTS,
  type ConduitRequest,
  type ConduitSeries,
  serveConduit,
} from '../conduit/conduit-requests.ts'
import type { Target } from '../series/types.ts'
import { clientCpuMs } from './cpu.ts'

/** How the Conduit cell is run on one library. */
export interface ConduitOptions {
  /** Timed rounds (each serves the four requests once), after the warm-up. */
  readonly samples: number
  /** Untimed rounds first (connections opened, statements prepared). */
  readonly warmup: number
  /** Connections of the client. */
  readonly pool: number
  /** Called with every answer, warm-up rounds included (the tests compare the libraries' answers). */
  readonly onAnswer?: (request: ConduitRequest, round: number, answer: unknown) => void
}

/** One timed request. */
export interface ConduitSample {
  readonly request: ConduitRequest
  /** By the clock, from the request's start to its answer. */
  readonly wallMs: number
  /** Round trips at the sockets while it ran (every connection of the client). */
  readonly roundTrips: number
  /** Of which opening connections (0 on a warm pool). */
  readonly openingRoundTrips: number
  /** Client CPU around it, ms. */
  readonly cpuMs: number
  /** pipeflush: its flush's report beside the socket's count of the flush. */
  readonly flush: CheckedFlush | undefined
}

/**
 * The Conduit cell on `series`: the tables reseeded (`reset`), a client of `options.pool` connections
 * opened, `warmup` untimed rounds, then `samples` timed ones; a round serves the feed, the article
 * page, create article and favorite of {@link conduitInputs}(round), one after the other, each timed
 * by the clock and counted at the sockets on its own.
 *
 * @example
 * const samples = await measureConduit(series, env.conduit, () => env.resetConduit(), { samples: 30, warmup: 2, pool: 4 })
 */
export async function measureConduit(
  series: ConduitSeries,
  target: Target,
  reset: () => Promise<void>,
  options: ConduitOptions,
): Promise<ConduitSample[]> {
  await reset()
  const client = await series.open(target, options.pool)
  const samples: ConduitSample[] = []
  try {
    for (let round = 0; round < options.warmup + options.samples; round++) {
      for (const request of CONDUIT_REQUESTS) {
        client.counter.reset()
        const cpu0 = clientCpuMs()
        const t0 = performance.now()
        // The timed loop of the Conduit cell: one request, its unit of work from start to answer.
        const { answer, flush } = await serveConduit(client, request, round)
        const wallMs = performance.now() - t0
        const cpuMs = clientCpuMs() - cpu0
        options.onAnswer?.(request, round, answer)
        if (round < options.warmup) continue
        const roundTrips = client.counter.read().roundTrips
        const openingRoundTrips = client.counter.perConnection().reduce((n, c) => n + c.opening, 0)
        samples.push({ request, wallMs, roundTrips, openingRoundTrips, cpuMs, flush })
      }
    }
  } finally {
    await client.close()
  }
  return samples
}
