import type { BenchReport, ResultRow } from '../results.ts'
import type { SeriesName } from '../series/types.ts'
import { ms, times } from './format.ts'

/** One "done when" condition of issue 5, checked against a run. */
export interface Claim {
  readonly text: string
  /** null when the run does not have the numbers (series missing, cell not measured). */
  readonly ok: boolean | null
  readonly detail: string
}

const LATENCY = 2
const TABLES = 10
const ROWS = 1

/**
 * Issue 5's "done when" at 2 ms, 10 tables, 1 row: pipeflush-burst within 1.5x of one RTT, at least 6x
 * faster than raw-sequential and than mikroorm, at least 2x faster than raw-promise-all.
 */
export function checkClaims(report: BenchReport): Claim[] {
  const at = (series: SeriesName): ResultRow | undefined =>
    report.results.find(
      (r) =>
        r.scenario === 'matrix' &&
        r.series === series &&
        r.latencyMs === LATENCY &&
        r.tables === TABLES &&
        r.rowsPerTable === ROWS &&
        r.status === 'ok',
    )
  const burst = at('pipeflush-burst')
  const rtt = report.rtt.find((r) => r.latencyMs === LATENCY)?.medianMs
  const claims: Claim[] = []
  const where = `at ${LATENCY} ms, ${TABLES} tables x ${ROWS} row`
  const missing = (what: string) => `not measured in this run (${what})`

  if (!burst?.medianMs || !rtt)
    claims.push({
      text: `pipeflush-burst within 1.5x of one RTT ${where}`,
      ok: null,
      detail: missing('pipeflush-burst or the RTT'),
    })
  else {
    const ratio = burst.medianMs / rtt
    claims.push({
      text: `pipeflush-burst within 1.5x of one RTT ${where}`,
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
    const text = `pipeflush-burst at least ${factor}x faster than ${other} ${where}`
    if (!burst?.medianMs || !o?.medianMs)
      claims.push({ text, ok: null, detail: missing(`pipeflush-burst or ${other}`) })
    else {
      const speedup = o.medianMs / burst.medianMs
      claims.push({
        text,
        ok: speedup >= factor,
        detail: `${ms(o.medianMs)} ms / ${ms(burst.medianMs)} ms = ${times(speedup)}`,
      })
    }
  }
  return claims
}

/** `PASS` / `FAIL` / `n/a`. */
export function claimMark(claim: Claim): string {
  return claim.ok === null ? 'n/a' : claim.ok ? 'PASS' : 'FAIL'
}
