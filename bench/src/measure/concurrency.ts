import type { Series, SeriesClient, Target } from '../series/types.ts'
import { mean, type Summary, summarize } from '../stats.ts'
import type { Work } from '../workload.ts'
import { clientCpuMs } from './cpu.ts'

export interface ConcurrencyOptions {
  /** Units of work in flight at any time. */
  readonly workers: number
  /** Connections of the client. */
  readonly pool: number
  /** Timed duration, ms. */
  readonly durationMs: number
  /** Untimed warm-up duration, ms (opens the pool's connections, prepares statements on each). */
  readonly warmupMs: number
}

/** What a concurrency run measured. Latencies are per unit of work, waiting for a connection included. */
export interface ConcurrencyMeasurement extends Summary {
  readonly flushesPerSecond: number
  readonly flushes: number
  readonly elapsedMs: number
  /** Round trips per flush, counted at the sockets of every connection. */
  readonly roundTrips: number
  /** Client CPU per flush over the timed window, ms (`process.cpuUsage`, user + system). */
  readonly cpuMs: number
}

/** `workers` loops, each flushing one unit of work after another until `deadline`. Returns each flush's duration. */
async function loop(client: SeriesClient, work: Work, workers: number, deadline: number): Promise<number[]> {
  const durations: number[] = []
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now()
        await client.flush(work)
        durations.push(performance.now() - t0)
      }
    }),
  )
  return durations
}

/**
 * `workers` concurrent units of work sharing a client of `pool` connections: flushes per second,
 * latency per flush and round trips per flush, after a warm-up of the same shape.
 */
export async function measureConcurrency(
  series: Series,
  target: Target,
  work: Work,
  options: ConcurrencyOptions,
): Promise<ConcurrencyMeasurement> {
  const client = await series.open(target, { pool: options.pool })
  try {
    await loop(client, work, options.workers, performance.now() + options.warmupMs)
    client.counter.reset()
    const cpu0 = clientCpuMs()
    const t0 = performance.now()
    const durations = await loop(client, work, options.workers, t0 + options.durationMs)
    const elapsedMs = performance.now() - t0
    const cpuMs = clientCpuMs() - cpu0
    const roundTrips = client.counter.read().roundTrips
    return {
      ...summarize(durations),
      flushes: durations.length,
      elapsedMs,
      flushesPerSecond: (durations.length * 1000) / elapsedMs,
      roundTrips: durations.length > 0 ? roundTrips / durations.length : mean([]),
      cpuMs: durations.length > 0 ? cpuMs / durations.length : mean([]),
    }
  } finally {
    await client.close()
  }
}
