import { Bench, type HookMode } from 'tinybench'
import type { Series, Target } from '../series/types.ts'
import { mean, type Summary, summarize } from '../stats.ts'
import type { Work } from '../workload.ts'

/** How long a cell is sampled. */
export interface CellTiming {
  /** Minimum timed flushes. */
  readonly minSamples: number
  /** Time budget, ms: sampling continues until both this and `minSamples` are reached. */
  readonly timeMs: number
  /** Untimed flushes between the cold one and the timed ones (statements prepared, caches warm). */
  readonly warmup: number
}

/** What one cell measured. */
export interface CellMeasurement extends Summary {
  /** Round trips per timed flush, counted at the socket. */
  readonly roundTrips: number
  readonly roundTripsMin: number
  readonly roundTripsMax: number
  /** Mean round trips the library reported itself (pipeflush's `report.roundTrips`). */
  readonly reportedRoundTrips: number | undefined
  /** Timed flushes that fetched an id block first, when the library says so. */
  readonly idFetches: number | undefined
  /** The first flush on a fresh, connected client: statements not yet prepared. */
  readonly coldMs: number
  readonly coldRoundTrips: number
}

/**
 * Measures `series` flushing `work` through `target`: opens a fresh client (one connection), times
 * its first flush as the cold figure, runs the warm-up flushes, then samples warm flushes with
 * tinybench. Every flush's round trips are counted at the socket.
 */
export async function measureFlushCell(
  series: Series,
  target: Target,
  work: Work,
  timing: CellTiming,
): Promise<CellMeasurement> {
  const client = await series.open(target, { pool: 1 })
  try {
    const { counter } = client
    counter.reset()
    const t0 = performance.now()
    await client.flush(work)
    const coldMs = performance.now() - t0
    const coldRoundTrips = counter.read().roundTrips

    let phase: HookMode = 'warmup'
    const roundTrips: number[] = []
    const reported: number[] = []
    let idFetches = 0
    const bench = new Bench({
      iterations: timing.minSamples,
      time: timing.timeMs,
      warmup: timing.warmup > 0,
      warmupIterations: timing.warmup,
      warmupTime: 0,
      retainSamples: true,
      throws: true,
    })
    bench.add(
      series.name,
      async () => {
        counter.reset()
        await client.flush(work)
        if (phase !== 'run') return
        roundTrips.push(counter.read().roundTrips)
        const report = client.lastReport?.()
        if (report) {
          reported.push(report.roundTrips)
          if (report.idFetch) idFetches++
        }
      },
      {
        beforeAll(mode) {
          phase = mode ?? 'run'
        },
      },
    )
    await bench.run()
    const result = bench.tasks[0]?.result
    if (!result || (result.state !== 'completed' && result.state !== 'aborted-with-statistics'))
      throw new Error(`tinybench: task ended ${result?.state ?? 'without a result'}`)
    const samples = result.latency.samples ?? []
    return {
      ...summarize(samples),
      roundTrips: mean(roundTrips),
      roundTripsMin: Math.min(...roundTrips),
      roundTripsMax: Math.max(...roundTrips),
      reportedRoundTrips: reported.length > 0 ? mean(reported) : undefined,
      idFetches: reported.length > 0 ? idFetches : undefined,
      coldMs,
      coldRoundTrips,
    }
  } finally {
    await client.close()
  }
}
