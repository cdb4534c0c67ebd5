import type { BenchEnv } from './env/services.ts'
import type { LatencyGroup, Step } from './matrix.ts'
import { measureConcurrency } from './measure/concurrency.ts'
import { measureFlushCell } from './measure/flush-cell.ts'
import { measureRtt } from './measure/rtt.ts'
import type { BenchOptions } from './options.ts'
import type { ResultRow, RttRow } from './results.ts'
import type { SeriesName } from './series/types.ts'
import { round, type Summary } from './stats.ts'

/** Where a run reports its progress. */
export interface RunListener {
  /** Before each step: `done` steps finished out of `total`. */
  step(done: number, total: number, step: Step | undefined): void
  log(line: string): void
}

/** Runs every step of `plan` and returns the rows and RTTs; a failing step becomes a `failed` row. */
export async function runPlan(
  plan: readonly LatencyGroup[],
  env: BenchEnv,
  options: BenchOptions,
  unavailable: ReadonlyMap<SeriesName, string>,
  listener: RunListener,
): Promise<{ results: ResultRow[]; rtt: RttRow[] }> {
  const total = plan.reduce((n, g) => n + g.steps.length, 0)
  const results: ResultRow[] = []
  const rtt: RttRow[] = []
  let done = 0
  for (const group of plan) {
    await env.proxy.setLatency(group.latencyMs)
    const r = await measureRtt(env.target, options.rttSamples)
    rtt.push({
      latencyMs: group.latencyMs,
      medianMs: round(r.medianMs),
      p95Ms: round(r.p95Ms),
      samples: r.samples,
      roundTrips: r.roundTrips,
    })
    listener.log(`latency ${group.latencyMs} ms: select 1 median ${r.medianMs.toFixed(2)} ms`)
    for (const step of group.steps) {
      listener.step(done, total, step)
      const reason = unavailable.get(step.series.name)
      if (reason) results.push(missingRow(step, 'unavailable', reason, r.medianMs))
      else {
        try {
          results.push(await withTimeout(measureStep(step, env, options, r.medianMs), options.stepTimeoutMs))
        } catch (e) {
          const message = e instanceof Error ? e.message.split('\n')[0] : String(e)
          listener.log(`${step.series.name} failed: ${message}`)
          results.push(missingRow(step, 'failed', message ?? 'failed', r.medianMs))
        }
        await env.truncate()
      }
      done++
    }
  }
  return { results, rtt }
}

/** Rejects when `promise` has not settled after `ms` (the measurement is abandoned, not cancelled). */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true
      reject(new Error(`no result after ${ms / 1000} s (a flush never settled?)`))
    }, ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** Whether a measurement was abandoned: its client may still hold connections open. */
export let timedOut = false

async function measureStep(step: Step, env: BenchEnv, o: BenchOptions, rttMs: number): Promise<ResultRow> {
  if (step.scenario === 'concurrency') {
    const m = await measureConcurrency(step.series, env.target, step.work, {
      workers: o.concurrency,
      pool: o.pool,
      durationMs: o.concurrencyTimeMs,
      warmupMs: Math.min(500, o.concurrencyTimeMs / 2),
    })
    return {
      ...base(step, m, rttMs),
      roundTrips: round(m.roundTrips, 2),
      flushesPerSecond: round(m.flushesPerSecond, 1),
      workers: o.concurrency,
      pool: o.pool,
      durationMs: round(m.elapsedMs, 0),
    }
  }
  const large = step.scenario === 'large'
  const m = await measureFlushCell(step.series, env.target, step.work, {
    minSamples: large ? o.largeSamples : o.samples,
    timeMs: large ? 0 : o.timeMs,
    warmup: large ? 0 : o.warmup,
  })
  return {
    ...base(step, m, rttMs),
    roundTrips: round(m.roundTrips, 2),
    roundTripsMin: m.roundTripsMin,
    roundTripsMax: m.roundTripsMax,
    reportedRoundTrips: m.reportedRoundTrips === undefined ? null : round(m.reportedRoundTrips, 2),
    idFetches: m.idFetches ?? null,
    coldMs: round(m.coldMs),
    coldRoundTrips: m.coldRoundTrips,
  }
}

function base(step: Step, m: Summary, rttMs: number): ResultRow {
  return {
    ...cell(step, rttMs),
    status: 'ok',
    medianMs: round(m.medianMs),
    p95Ms: round(m.p95Ms),
    meanMs: round(m.meanMs),
    minMs: round(m.minMs),
    maxMs: round(m.maxMs),
    samples: m.samples,
    roundTrips: null,
  }
}

function missingRow(step: Step, status: 'unavailable' | 'failed', reason: string, rttMs: number): ResultRow {
  return {
    ...cell(step, rttMs),
    status,
    reason,
    medianMs: null,
    p95Ms: null,
    meanMs: null,
    minMs: null,
    maxMs: null,
    samples: 0,
    roundTrips: null,
  }
}

function cell(step: Step, rttMs: number) {
  return {
    scenario: step.scenario,
    series: step.series.name,
    latencyMs: step.latencyMs,
    tables: step.work.tables.length,
    rowsPerTable: step.work.rowsPerTable,
    rttMs: round(rttMs),
    ratioVsRawSequential: null,
    speedupVsRawSequential: null,
    ratioVsRtt: null,
  } as const
}
