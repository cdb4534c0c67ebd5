import type { BenchReport, ResultRow } from '../results.ts'
import { DRIVERS, type DriverName, type SeriesName, seriesId } from '../series/types.ts'
import { ms, times } from './format.ts'

/** One target of the benchmark (a condition on a run's numbers), checked against a run. */
export interface TargetCheck {
  readonly text: string
  /** null when the run does not have the numbers (series missing, cell not measured). */
  readonly ok: boolean | null
  readonly detail: string
}

const LATENCY = 2
const TABLES = 10
const ROWS = 1

/** The drivers pipeflush-burst ran on in `report` (postgres.js when it ran on none). */
export function burstDrivers(report: BenchReport): DriverName[] {
  const ran = DRIVERS.filter((d) =>
    report.results.some((r) => r.series === 'pipeflush-burst' && r.driver === d),
  )
  return ran.length > 0 ? ran : ['postgres.js']
}

/**
 * The headline targets at 2 ms, 10 tables, 1 row, for pipeflush-burst on each driver: within 1.5x of
 * one RTT, at least 6x faster than raw-sequential and than mikroorm, at least 2x faster than
 * raw-promise-all.
 */
export function checkHeadlineTargets(report: BenchReport): TargetCheck[] {
  const at = (series: SeriesName, driver?: DriverName): ResultRow | undefined =>
    report.results.find(
      (r) =>
        r.scenario === 'matrix' &&
        r.series === series &&
        (driver === undefined || r.driver === driver) &&
        r.latencyMs === LATENCY &&
        r.tables === TABLES &&
        r.rowsPerTable === ROWS &&
        r.status === 'ok',
    )
  const rtt = report.rtt.find((r) => r.latencyMs === LATENCY)?.medianMs
  const checks: TargetCheck[] = []
  const where = `at ${LATENCY} ms, ${TABLES} tables x ${ROWS} row`
  const missing = (what: string) => `not measured in this run (${what})`
  for (const driver of burstDrivers(report)) {
    const name = seriesId('pipeflush-burst', driver)
    const burst = at('pipeflush-burst', driver)
    if (!burst?.medianMs || !rtt)
      checks.push({
        text: `${name} within 1.5x of one RTT ${where}`,
        ok: null,
        detail: missing(`${name} or the RTT`),
      })
    else {
      const ratio = burst.medianMs / rtt
      checks.push({
        text: `${name} within 1.5x of one RTT ${where}`,
        ok: ratio <= 1.5,
        detail: `${ms(burst.medianMs)} ms vs RTT ${ms(rtt)} ms = ${times(ratio)}`,
      })
    }
    for (const [other, factor] of [
      ['raw-sequential', 6],
      ['mikroorm', 6],
      ['raw-promise-all', 2],
    ] as const) {
      const o = at(other)
      const text = `${name} at least ${factor}x faster than ${other} ${where}`
      if (!burst?.medianMs || !o?.medianMs)
        checks.push({ text, ok: null, detail: missing(`${name} or ${other}`) })
      else {
        const speedup = o.medianMs / burst.medianMs
        checks.push({
          text,
          ok: speedup >= factor,
          detail: `${ms(o.medianMs)} ms / ${ms(burst.medianMs)} ms = ${times(speedup)}`,
        })
      }
    }
  }
  return checks
}

/** `PASS` / `FAIL` / `n/a`. */
export function targetMark(check: TargetCheck): string {
  return check.ok === null ? 'n/a' : check.ok ? 'PASS' : 'FAIL'
}
