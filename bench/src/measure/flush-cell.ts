import { Bench, type HookMode } from 'tinybench'
import type { Series, SeriesClient, Target } from '../series/types.ts'
import { mean, type Summary, summarize } from '../stats.ts'
import type { Work } from '../workload.ts'
import { backendCpu, clientCpuMs } from './cpu.ts'

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
  /** Flushes (the cold one included) whose report differs from the socket count. */
  readonly reportMismatches: number | undefined
  /** Timed flushes that fetched an id block first, when the library says so. */
  readonly idFetches: number | undefined
  /** Client CPU per timed flush, ms (`process.cpuUsage`, user + system). */
  readonly cpuMs: number
  /** CPU of the server backend per timed flush, ms, where it can be read. */
  readonly serverCpuMs: number | undefined
  /** The first flush on a fresh, connected client: statements not yet prepared. */
  readonly coldMs: number
  readonly coldRoundTrips: number
  /** What the library reported for the cold flush. */
  readonly coldReportedRoundTrips: number | undefined
}

/** One flush counted at the socket; returns the round trips and whether the report disagreed. */
async function countedFlush(client: SeriesClient, work: Work): Promise<{ trips: number; mismatch: boolean }> {
  client.counter.reset()
  await client.flush(work)
  const trips = client.counter.read().roundTrips
  const report = client.lastReport?.()
  return { trips, mismatch: report !== undefined && report.roundTrips !== trips }
}

/**
 * Measures `series` flushing `work` through `target`: opens a fresh client (one connection), times
 * its first flush as the cold figure, runs the warm-up flushes, then samples warm flushes with
 * tinybench. Every flush's round trips are counted at the socket and checked against the library's
 * report; client CPU (and the backend's, where readable) is summed over the timed flushes.
 */
export async function measureFlushCell(
  series: Series,
  target: Target,
  work: Work,
  timing: CellTiming,
): Promise<CellMeasurement> {
  const client = await series.open(target, { pool: 1 })
  try {
    const server = await backendCpu(client.query)
    const t0 = performance.now()
    const cold = await countedFlush(client, work)
    const coldMs = performance.now() - t0
    const coldReportedRoundTrips = client.lastReport?.()?.roundTrips

    let phase: HookMode = 'warmup'
    const roundTrips: number[] = []
    const reported: number[] = []
    let mismatches = cold.mismatch ? 1 : 0
    let idFetches = 0
    let cpuMs = 0
    let serverStart: number | undefined
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
      series.id,
      async () => {
        if (phase !== 'run') {
          await client.flush(work)
          return
        }
        serverStart ??= server?.read()
        const cpu0 = clientCpuMs()
        const { trips, mismatch } = await countedFlush(client, work)
        cpuMs += clientCpuMs() - cpu0
        roundTrips.push(trips)
        if (mismatch) mismatches++
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
    const serverEnd = server?.read()
    const result = bench.tasks[0]?.result
    if (!result || (result.state !== 'completed' && result.state !== 'aborted-with-statistics'))
      throw new Error(`tinybench: task ended ${result?.state ?? 'without a result'}`)
    const samples = result.latency.samples ?? []
    const n = roundTrips.length
    const hasReport = reported.length > 0
    return {
      ...summarize(samples),
      roundTrips: mean(roundTrips),
      roundTripsMin: Math.min(...roundTrips),
      roundTripsMax: Math.max(...roundTrips),
      reportedRoundTrips: hasReport ? mean(reported) : undefined,
      reportMismatches: hasReport ? mismatches : undefined,
      idFetches: hasReport ? idFetches : undefined,
      cpuMs: cpuMs / n,
      serverCpuMs:
        serverStart !== undefined && serverEnd !== undefined ? (serverEnd - serverStart) / n : undefined,
      coldMs,
      coldRoundTrips: cold.trips,
      coldReportedRoundTrips,
    }
  } finally {
    await client.close()
  }
}
