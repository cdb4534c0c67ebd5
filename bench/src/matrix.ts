import type { ConduitSeries } from './conduit/conduit-requests.ts'
import { WIDE_TABLE } from './measure/first-flush.ts'
import type { BenchOptions } from './options.ts'
import type { RealisticSeries } from './realistic/runner.ts'
import type { RequestSeries } from './request/request.ts'
import { SHOP_CELLS, shopWork } from './series/shop-cells.ts'
import type { Series } from './series/types.ts'
import { largeWork, matrixWork, type Work } from './workload.ts'

/** One measurement: a flush cell (matrix or large flush) or a concurrency run of one series. */
export interface FlushStep {
  readonly scenario: 'matrix' | 'large' | 'concurrency'
  readonly series: Series
  readonly latencyMs: number
  readonly work: Work
}

/** Client CPU of several series measured side by side on the same work. */
export interface CpuStep {
  readonly scenario: 'cpu'
  readonly series: readonly Series[]
  readonly latencyMs: number
  readonly work: Work
}

/** The realistic workload on one library, `concurrency` units at a time, from cold pools. */
export interface RealisticStep {
  readonly scenario: 'realistic'
  readonly series: RealisticSeries
  readonly latencyMs: number
  readonly concurrency: number
}

/** The request scenario's shop cell on one library: a read-modify-write request, timed request by request. */
export interface RequestStep {
  readonly scenario: 'request'
  readonly cell: 'shop'
  readonly series: RequestSeries
  readonly latencyMs: number
}

/** The request scenario's Conduit cell on one library: rounds of four Conduit requests, each timed. */
export interface ConduitStep {
  readonly scenario: 'request'
  readonly cell: 'conduit'
  readonly series: ConduitSeries
  readonly latencyMs: number
}

export type Step = FlushStep | CpuStep | RealisticStep | RequestStep | ConduitStep

/** The steps at one injected latency (the latency toxic is set once, then the RTT is measured). */
export interface LatencyGroup {
  readonly latencyMs: number
  readonly steps: readonly Step[]
}

/** The work shapes of the CPU comparison: 10 tables x 1 row, 5 tables x 10 rows. */
export const CPU_WORK: readonly Work[] = [matrixWork(10, 1), matrixWork(5, 10)]

/** The series that write the shop cells of the CPU scenario (see `series/shop-cells.ts`). */
export const SHOP_CELL_SERIES: readonly string[] = ['pipeflush-burst', 'raw-pipeline', 'raw-simple']

/** Units flushed at the same time in the realistic workload: in sequence, and four at a time. */
export const REALISTIC_CONCURRENCY: readonly number[] = [1, 4]

/**
 * The plan of a run, grouped by latency: at each latency, every (tables, rows) cell with every series
 * in turn (series interleaved per cell, so a drift of the machine hits them alike), then the large
 * flush, the concurrency run, the side-by-side CPU measurement, the realistic workload and the request
 * scenario's cells (`options.requestCells`: the shop's request, then the Conduit cell) if they are at
 * that latency. Only the scenarios of `options.scenarios` (all when undefined); latencies left without a
 * step are dropped.
 *
 * @example
 * buildPlan(parseOptions(['--quick']), selectSeries(undefined), REALISTIC_SERIES, REQUEST_SERIES, CONDUIT_SERIES)
 */
export function buildPlan(
  options: BenchOptions,
  series: readonly Series[],
  realistic: readonly RealisticSeries[] = [],
  request: readonly RequestSeries[] = [],
  conduit: readonly ConduitSeries[] = [],
): LatencyGroup[] {
  const latencies = new Set(options.latencies)
  if (options.large.length > 0) latencies.add(options.largeLatency)
  if (options.concurrency > 0) latencies.add(options.concurrencyLatency)
  const cpuSeries = series.filter((s) => s.scenarios.includes('cpu'))
  const cpu = options.cpuFlushes > 0 && cpuSeries.length > 0
  if (cpu) latencies.add(options.cpuLatency)
  if (realistic.length > 0) for (const l of options.realisticLatencies) latencies.add(l)
  const shopRequest = options.requestCells.includes('shop') ? request : []
  const conduitRequest = options.requestCells.includes('conduit') ? conduit : []
  if (shopRequest.length + conduitRequest.length > 0)
    for (const l of options.requestLatencies) latencies.add(l)
  const wanted = (s: Step) => !options.scenarios || options.scenarios.includes(s.scenario)
  const smallestRows = options.rows[0] ?? 1
  const for_ = (scenario: FlushStep['scenario']) => series.filter((s) => s.scenarios.includes(scenario))

  return [...latencies]
    .sort((a, b) => a - b)
    .map((latencyMs) => {
      const steps: Step[] = []
      if (options.latencies.includes(latencyMs)) {
        for (const rows of options.rows) {
          if (rows !== smallestRows && !options.rowsAt.includes(latencyMs)) continue
          for (const tables of options.tables)
            for (const s of for_('matrix'))
              steps.push({ scenario: 'matrix', series: s, latencyMs, work: matrixWork(tables, rows) })
        }
      }
      if (latencyMs === options.largeLatency)
        for (const rows of options.large)
          for (const s of for_('large'))
            steps.push({ scenario: 'large', series: s, latencyMs, work: largeWork(rows) })
      if (options.concurrency > 0 && latencyMs === options.concurrencyLatency)
        for (const s of for_('concurrency'))
          steps.push({
            scenario: 'concurrency',
            series: s,
            latencyMs,
            work: matrixWork(options.concurrencyTables, 1),
          })
      if (cpu && latencyMs === options.cpuLatency)
        for (const work of cpuWorks(options)) {
          const stepSeries = work.firstShapes
            ? cpuSeries.filter((x) => x.name === 'pipeflush-burst')
            : work.shop
              ? cpuSeries.filter((x) => SHOP_CELL_SERIES.includes(x.name))
              : cpuSeries
          if (stepSeries.length > 0) steps.push({ scenario: 'cpu', series: stepSeries, latencyMs, work })
        }
      if (options.realisticLatencies.includes(latencyMs))
        for (const concurrency of REALISTIC_CONCURRENCY)
          for (const s of realistic) steps.push({ scenario: 'realistic', series: s, latencyMs, concurrency })
      if (options.requestLatencies.includes(latencyMs)) {
        for (const s of shopRequest) steps.push({ scenario: 'request', cell: 'shop', series: s, latencyMs })
        for (const s of conduitRequest)
          steps.push({ scenario: 'request', cell: 'conduit', series: s, latencyMs })
      }
      return { latencyMs, steps: steps.filter(wanted) }
    })
    .filter((g) => g.steps.length > 0)
}

/**
 * The work shapes of the CPU scenario `options.cpuCells` selects: the plain-insert shapes of
 * {@link CPU_WORK} (`10x1`, `5x10`), the shop cells (`graph`, `update`, `delete`, `mix`, `load`) and
 * the first-flush cell (`first`: pipeflush-burst alone).
 *
 * @example
 * cpuWorks(parseOptions(['--cpu-cells', 'graph'])) // [shopWork('graph')]
 */
export function cpuWorks(options: Pick<BenchOptions, 'cpuCells'>): Work[] {
  return [
    ...CPU_WORK.filter((w) => options.cpuCells.includes(`${w.tables.length}x${w.rowsPerTable}`)),
    ...SHOP_CELLS.filter((c) => options.cpuCells.includes(c)).map(shopWork),
    ...(options.cpuCells.includes('first') ? [FIRST_SHAPES_WORK] : []),
  ]
}

/** The first-flush cell's work: new statement shapes of one table (see `measure/first-flush.ts`). */
export const FIRST_SHAPES_WORK: Work = { tables: [WIDE_TABLE], rowsPerTable: 0, firstShapes: true }

/** Number of steps of a plan. */
export function countSteps(plan: readonly LatencyGroup[]): number {
  return plan.reduce((n, g) => n + g.steps.length, 0)
}

/**
 * The series of a step, for progress lines and rows that have no numbers.
 *
 * @example
 * stepSeriesIds(step) // ['pipeflush-burst (pg)']
 */
export function stepSeriesIds(step: Step): string[] {
  return step.scenario === 'cpu' ? step.series.map((s) => s.id) : [step.series.id]
}
