import { CONDUIT_REQUESTS } from './conduit/conduit-requests.ts'
import { conduitRows } from './conduit-row.ts'
import type { BenchEnv } from './env/services.ts'
import type { ConduitStep, CpuStep, FlushStep, RealisticStep, RequestStep, Step } from './matrix.ts'
import { measureConcurrency } from './measure/concurrency.ts'
import { measureConduit } from './measure/conduit-run.ts'
import { measureCpuSideBySide } from './measure/cpu-cell.ts'
import { measureFirstFlush } from './measure/first-flush.ts'
import { measureFlushCell } from './measure/flush-cell.ts'
import { measureRealistic, type RealisticOptions } from './measure/realistic-run.ts'
import { measureRequests, type RequestOptions } from './measure/request-run.ts'
import type { BenchOptions } from './options.ts'
import { realisticRow } from './realistic-row.ts'
import { requestRow } from './request-row.ts'
import type { ResultRow } from './results.ts'
import type { DriverName, Series, SeriesName } from './series/types.ts'
import { round, type Summary } from './stats.ts'

/** Nullable rounding for optional measurements. */
const maybe = (v: number | undefined, digits = 3) => (v === undefined ? null : round(v, digits))

/** The fields every row has, for `series` on `driver` in the cell of `step`. */
function cell(step: Step, series: SeriesName, driver: DriverName, rttMs: number) {
  const work =
    step.scenario === 'realistic' || step.scenario === 'request' ? { tables: [], rowsPerTable: 0 } : step.work
  return {
    scenario: step.scenario,
    series,
    driver,
    latencyMs: step.latencyMs,
    tables: work.tables.length,
    rowsPerTable: work.rowsPerTable,
    rttMs: round(rttMs),
    ratioVsRawSequential: null,
    speedupVsRawSequential: null,
    ratioVsRtt: null,
    ...(step.scenario === 'realistic' ? { concurrency: step.concurrency } : {}),
    ...(step.scenario === 'request' && step.cell === 'shop' && step.series.variant
      ? { variant: step.series.variant }
      : {}),
    ...(step.scenario === 'cpu' && step.work.shop ? { cpuCell: step.work.shop } : {}),
    ...(step.scenario === 'cpu' && step.work.firstShapes ? { cpuCell: 'first' } : {}),
  } as const
}

function timings(m: Summary) {
  return {
    status: 'ok',
    medianMs: round(m.medianMs),
    p95Ms: round(m.p95Ms),
    p99Ms: round(m.p99Ms),
    meanMs: round(m.meanMs),
    minMs: round(m.minMs),
    maxMs: round(m.maxMs),
    samples: m.samples,
  } as const
}

/** Rows without numbers for every series of `step`: it could not run here, or failed. */
export function missingRows(
  step: Step,
  status: 'unavailable' | 'failed',
  reason: string,
  rttMs: number,
  only?: ReadonlySet<string>,
): ResultRow[] {
  const series = step.scenario === 'cpu' ? step.series : [step.series]
  // The Conduit cell has a row per request.
  const requests =
    step.scenario === 'request' && step.cell === 'conduit'
      ? CONDUIT_REQUESTS.map((conduitRequest) => ({ scenario: 'conduit' as const, conduitRequest }))
      : [{}]
  return series
    .filter((s) => !only || only.has(s.id))
    .flatMap((s) => requests.map((request) => ({ s, request })))
    .map(({ s, request }) => ({
      ...cell(step, s.name, s.driver, rttMs),
      ...request,
      status,
      reason,
      medianMs: null,
      p95Ms: null,
      meanMs: null,
      minMs: null,
      maxMs: null,
      samples: 0,
      roundTrips: null,
    }))
}

async function flushStep(step: FlushStep, env: BenchEnv, o: BenchOptions, rttMs: number): Promise<ResultRow> {
  const { series } = step
  if (step.scenario === 'concurrency') {
    const m = await measureConcurrency(series, env.target, step.work, {
      workers: o.concurrency,
      pool: o.pool,
      durationMs: o.concurrencyTimeMs,
      warmupMs: Math.min(500, o.concurrencyTimeMs / 2),
    })
    return {
      ...cell(step, series.name, series.driver, rttMs),
      ...timings(m),
      roundTrips: round(m.roundTrips, 2),
      cpuMs: round(m.cpuMs),
      flushesPerSecond: round(m.flushesPerSecond, 1),
      workers: o.concurrency,
      pool: o.pool,
      durationMs: round(m.elapsedMs, 0),
    }
  }
  const large = step.scenario === 'large'
  const m = await measureFlushCell(series, env.target, step.work, {
    minSamples: large ? o.largeSamples : o.samples,
    timeMs: large ? 0 : o.timeMs,
    warmup: large ? 0 : o.warmup,
  })
  return {
    ...cell(step, series.name, series.driver, rttMs),
    ...timings(m),
    roundTrips: round(m.roundTrips, 2),
    roundTripsMin: m.roundTripsMin,
    roundTripsMax: m.roundTripsMax,
    reportedRoundTrips: maybe(m.reportedRoundTrips, 2),
    reportMismatches: m.reportMismatches ?? null,
    idFetches: m.idFetches ?? null,
    cpuMs: round(m.cpuMs),
    serverCpuMs: maybe(m.serverCpuMs),
    coldMs: round(m.coldMs),
    coldRoundTrips: m.coldRoundTrips,
    coldReportedRoundTrips: m.coldReportedRoundTrips ?? null,
  }
}

async function cpuStep(
  step: CpuStep,
  env: BenchEnv,
  o: BenchOptions,
  rttMs: number,
  unavailable: ReadonlyMap<string, string>,
): Promise<ResultRow[]> {
  const runnable = step.series.filter((s) => !unavailable.has(s.id))
  const byId = await measureCpuSideBySide(runnable, env.target, step.work, {
    flushes: o.cpuFlushes,
    chunk: Math.max(10, Math.min(100, Math.round(o.cpuFlushes / 10))),
    warmup: o.cpuWarmup,
  })
  return step.series.flatMap((s) =>
    seriesRows(step, s, rttMs, unavailable, byId.get(s.id), (m) => ({
      ...cell(step, s.name, s.driver, rttMs),
      ...timings(m),
      roundTrips: round(m.roundTrips, 2),
      reportedRoundTrips: maybe(m.reportedRoundTrips, 2),
      reportMismatches: m.reportMismatches ?? null,
      idFetches: m.idFetches ?? null,
      cpuMs: round(m.cpuMs),
      cpuP50Ms: round(m.cpuP50Ms),
      cpuP95Ms: round(m.cpuP95Ms),
      ...(m.spansPerFlush === undefined ? {} : { spansPerFlush: round(m.spansPerFlush, 2) }),
      serverCpuMs: maybe(m.serverCpuMs),
    })),
  )
}

/**
 * The row of series `s` in a CPU step from its measurement `m`: rows without numbers when the series
 * cannot run here, or failed (its error's first line); else `row(m)`.
 */
function seriesRows<T>(
  step: CpuStep,
  s: Series,
  rttMs: number,
  unavailable: ReadonlyMap<string, string>,
  m: T | Error | undefined,
  row: (m: T) => ResultRow,
): ResultRow[] {
  const missing = unavailable.get(s.id)
  if (missing) return missingRows(step, 'unavailable', missing, rttMs, new Set([s.id]))
  if (m === undefined) return missingRows(step, 'failed', 'failed', rttMs, new Set([s.id]))
  if (m instanceof Error)
    return missingRows(step, 'failed', m.message.split('\n')[0] ?? 'failed', rttMs, new Set([s.id]))
  return [row(m)]
}

/**
 * The first-flush cell: per driver of the step's pipeflush-burst series, the first flush of new
 * statement shapes against the same flushes repeated (see `measureFirstFlush`): as many shapes as a
 * tenth of `--cpu-flushes`, from 5 to 150.
 */
async function firstFlushStep(
  step: CpuStep,
  env: BenchEnv,
  o: BenchOptions,
  rttMs: number,
  unavailable: ReadonlyMap<string, string>,
): Promise<ResultRow[]> {
  const shapes = Math.max(5, Math.min(150, Math.round(o.cpuFlushes / 10)))
  const rows: ResultRow[] = []
  for (const s of step.series) {
    const m = unavailable.has(s.id)
      ? undefined
      : await measureFirstFlush(s.driver, env.target, shapes).catch((e: unknown) =>
          e instanceof Error ? e : new Error(String(e)),
        )
    rows.push(
      ...seriesRows(step, s, rttMs, unavailable, m, (first) => ({
        ...cell(step, s.name, s.driver, rttMs),
        status: 'ok',
        medianMs: null,
        p95Ms: null,
        meanMs: null,
        minMs: null,
        maxMs: null,
        samples: first.shapes,
        roundTrips: null,
        cpuP50Ms: round(first.firstP50Ms),
        cpuRepeatedP50Ms: round(first.repeatedP50Ms),
      })),
    )
  }
  return rows
}

async function realisticStep(
  step: RealisticStep,
  env: BenchEnv,
  o: BenchOptions,
  rttMs: number,
): Promise<ResultRow> {
  const options: RealisticOptions = {
    runs: o.realisticRuns,
    units: o.realisticUnits,
    pool: o.realisticPool,
    concurrency: step.concurrency,
    seed: o.realisticSeed,
  }
  const m = await measureRealistic(step.series, env.target, () => env.resetShop(), options)
  return realisticRow(step, m, options, rttMs)
}

async function requestStep(
  step: RequestStep,
  env: BenchEnv,
  o: BenchOptions,
  rttMs: number,
): Promise<ResultRow> {
  const options: RequestOptions = { samples: o.requestSamples, warmup: o.requestWarmup, pool: o.requestPool }
  const m = await measureRequests(step.series, env.target, () => env.resetShop(), options)
  return requestRow(step, m, options, rttMs)
}

async function conduitStep(step: ConduitStep, env: BenchEnv, o: BenchOptions, rttMs: number) {
  const options = { samples: o.requestSamples, warmup: o.requestWarmup, pool: o.requestPool }
  const samples = await measureConduit(step.series, env.conduit, () => env.resetConduit(), options)
  return conduitRows(step, samples, options, rttMs)
}

/**
 * Measures one step and returns its rows (one per series; the CPU step has one per series it compares,
 * the Conduit cell one per request).
 *
 * @example
 * const rows = await measureStep(step, env, options, rtt.medianMs, unavailable)
 */
export async function measureStep(
  step: Step,
  env: BenchEnv,
  o: BenchOptions,
  rttMs: number,
  unavailable: ReadonlyMap<string, string>,
): Promise<ResultRow[]> {
  if (step.scenario === 'cpu')
    return step.work.firstShapes
      ? firstFlushStep(step, env, o, rttMs, unavailable)
      : cpuStep(step, env, o, rttMs, unavailable)
  if (step.scenario === 'realistic') return [await realisticStep(step, env, o, rttMs)]
  if (step.scenario === 'request')
    return step.cell === 'conduit'
      ? conduitStep(step, env, o, rttMs)
      : [await requestStep(step, env, o, rttMs)]
  return [await flushStep(step, env, o, rttMs)]
}
