import { type RequestSeries, requestChanges, requestCustomer } from '../request/request.ts'
import type { LibraryReport, Target } from '../series/types.ts'
import { clientCpuMs } from './cpu.ts'

/** How the request scenario is run on one library. */
export interface RequestOptions {
  /** Timed requests (after the warm-up). */
  readonly samples: number
  /** Untimed requests first (the pool's connections opened, statements prepared). */
  readonly warmup: number
  /** Connections of the client. */
  readonly pool: number
}

/** One timed request. */
export interface RequestSample {
  /** Load, changes and flush, by the clock. */
  readonly wallMs: number
  /** Of which the load. */
  readonly loadMs: number
  /** Round trips at the socket: the load's, and the flush's. */
  readonly loadRoundTrips: number
  readonly flushRoundTrips: number
  /** What the library reported about its flush (pipeflush). */
  readonly report: LibraryReport | undefined
}

/** What a library's requests measured. */
export interface RequestMeasurement {
  readonly samples: readonly RequestSample[]
  /** Flushes whose report differs from the socket count of the flush (pipeflush; must be 0). */
  readonly mismatches: number
  /** Client CPU per timed request, ms. */
  readonly cpuMs: number
}

/**
 * The request scenario on `series`: the shop reseeded (`reset`), a client of `options.pool`
 * connections opened, `warmup` untimed requests, then `samples` timed ones, one after the other. Request
 * `i` (warm-up ones counted) serves customer {@link requestCustomer}(i): load its graph in a fresh unit
 * of work, apply {@link requestChanges}, flush. Timed by the clock from before the load to the flush's
 * end; round trips counted at the sockets, the load's and the flush's apart.
 *
 * @example
 * const m = await measureRequests(series, target, () => env.resetShop(), { samples: 30, warmup: 2, pool: 4 })
 */
export async function measureRequests(
  series: RequestSeries,
  target: Target,
  reset: () => Promise<void>,
  options: RequestOptions,
): Promise<RequestMeasurement> {
  await reset()
  const client = await series.open(target, options.pool)
  const samples: RequestSample[] = []
  let mismatches = 0
  let cpuMs = 0
  try {
    for (let i = 0; i < options.warmup + options.samples; i++) {
      const customer = requestCustomer(i)
      client.counter.reset()
      const cpu0 = clientCpuMs()
      const t0 = performance.now()
      // The timed loop of the request scenario: load the graph, change it, flush.
      const loaded = await client.load(customer)
      const t1 = performance.now()
      const loadRoundTrips = client.counter.read().roundTrips
      const report = await loaded.flush(requestChanges(loaded.graph, i))
      const wallMs = performance.now() - t0
      const cpu = clientCpuMs() - cpu0
      const flushRoundTrips = client.counter.read().roundTrips - loadRoundTrips
      if (i < options.warmup) continue
      cpuMs += cpu
      if (report && report.roundTrips !== flushRoundTrips) mismatches++
      samples.push({ wallMs, loadMs: t1 - t0, loadRoundTrips, flushRoundTrips, report })
    }
  } finally {
    await client.close()
  }
  return { samples, mismatches, cpuMs: cpuMs / Math.max(1, samples.length) }
}
