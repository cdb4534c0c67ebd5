import { describe, expect, test } from 'vitest'
import { checkClaims } from '../../src/report/claims.ts'
import { markdownTable, ms, textTable } from '../../src/report/format.ts'
import { headlineView, missingLines } from '../../src/report/views.ts'
import type { BenchMeta, BenchReport, ResultRow } from '../../src/results.ts'
import { withRatios } from '../../src/results.ts'
import type { SeriesName } from '../../src/series/types.ts'
import { percentile, summarize } from '../../src/stats.ts'

function row(series: SeriesName, medianMs: number | null, extra: Partial<ResultRow> = {}): ResultRow {
  return {
    series,
    scenario: 'matrix',
    status: medianMs === null ? 'unavailable' : 'ok',
    latencyMs: 2,
    tables: 10,
    rowsPerTable: 1,
    medianMs,
    p95Ms: medianMs,
    meanMs: medianMs,
    minMs: medianMs,
    maxMs: medianMs,
    samples: medianMs === null ? 0 : 10,
    rttMs: 2.5,
    roundTrips: null,
    ratioVsRawSequential: null,
    speedupVsRawSequential: null,
    ratioVsRtt: null,
    ...extra,
  }
}

function report(results: ResultRow[]): BenchReport {
  return {
    meta: { options: {}, unavailable: {}, notes: [] } as unknown as BenchMeta,
    rtt: [{ latencyMs: 2, medianMs: 2.5, p95Ms: 3, samples: 20, roundTrips: 1 }],
    results: withRatios(results),
  }
}

describe('stats', () => {
  test('percentiles interpolate between ranks', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5)
    expect(percentile([1, 2, 3, 4, 5], 95)).toBeCloseTo(4.8)
    const s = summarize([5, 1, 3])
    expect([s.samples, s.medianMs, s.minMs, s.maxMs, s.meanMs]).toEqual([3, 3, 1, 5, 3])
  })
})

describe('ratios and claims', () => {
  const rows = [
    row('raw-sequential', 30),
    row('raw-promise-all', 8),
    row('pipeflush-burst', 3.5),
    row('mikroorm', 36),
    row('pg-pipeline', null, { reason: 'cannot run: test' }),
  ]

  test('ratios against raw-sequential of the same cell and against the RTT', () => {
    const burst = report(rows).results.find((r) => r.series === 'pipeflush-burst')
    expect(burst?.speedupVsRawSequential).toBeCloseTo(8.57, 2)
    expect(burst?.ratioVsRawSequential).toBeCloseTo(0.117, 3)
    expect(burst?.ratioVsRtt).toBe(1.4)
    expect(report(rows).results.find((r) => r.series === 'pg-pipeline')?.ratioVsRtt).toBeNull()
  })

  test("issue 5's claims pass or fail on the numbers, n/a when missing", () => {
    expect(checkClaims(report(rows)).map((c) => c.ok)).toEqual([true, true, true, true])
    const slow = checkClaims(report([row('raw-sequential', 30), row('pipeflush-burst', 6)]))
    expect(slow.map((c) => c.ok)).toEqual([false, false, null, null])
  })

  test('a series that cannot run is in the table, with its reason under it', () => {
    const view = headlineView(report(rows))
    expect(view?.rows.find((r) => r[0] === 'pg-pipeline')?.[1]).toBe('cannot run')
    expect(missingLines(report(rows).results)).toEqual(['pg-pipeline: cannot run: test'])
  })
})

describe('format', () => {
  test('tables and numbers', () => {
    expect(textTable(['a', 'bb'], [['x', '1']], ['left', 'right'])).toBe('a  bb\n-  --\nx   1')
    expect(markdownTable(['a|b'], [['1']], ['right'])).toBe('| a\\|b |\n|---:|\n| 1 |')
    expect([ms(1.234), ms(12.34), ms(123.4), ms(null)]).toEqual(['1.23', '12.3', '123', '-'])
  })
})
