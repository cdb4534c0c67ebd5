import type { BenchOptions } from './options.ts'
import type { Scenario, Series } from './series/types.ts'
import { largeWork, matrixWork, type Work } from './workload.ts'

/** One measurement of one series: a flush cell (matrix or large flush) or a concurrency run. */
export interface Step {
  readonly scenario: Scenario
  readonly series: Series
  readonly latencyMs: number
  readonly work: Work
}

/** The steps at one injected latency (the latency toxic is set once, then the RTT is measured). */
export interface LatencyGroup {
  readonly latencyMs: number
  readonly steps: readonly Step[]
}

/**
 * The plan of a run, grouped by latency: at each latency, every (tables, rows) cell with every series
 * in turn (series interleaved per cell, so a drift of the machine hits them alike), then the large
 * flush and the concurrency run if they are at that latency.
 */
export function buildPlan(options: BenchOptions, series: readonly Series[]): LatencyGroup[] {
  const latencies = new Set(options.latencies)
  if (options.large.length > 0) latencies.add(options.largeLatency)
  if (options.concurrency > 0) latencies.add(options.concurrencyLatency)
  const smallestRows = options.rows[0] ?? 1
  const for_ = (scenario: Scenario) => series.filter((s) => s.scenarios.includes(scenario))

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
      return { latencyMs, steps }
    })
}

/** Number of steps of a plan. */
export function countSteps(plan: readonly LatencyGroup[]): number {
  return plan.reduce((n, g) => n + g.steps.length, 0)
}
