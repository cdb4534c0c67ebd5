import { describe, expect, test } from 'vitest'
import { checkRound } from '../../src/measure/realistic-run.ts'
import { markdownTable, ms, textTable } from '../../src/report/format.ts'
import { checkHeadlineTargets } from '../../src/report/headline-targets.ts'
import { realisticViews } from '../../src/report/realistic-view.ts'
import {
  checkCpuConcurrencyLargeTargets,
  checkRealisticTargets,
  mismatchBanner,
} from '../../src/report/targets.ts'
import { headlineView, missingLines } from '../../src/report/views.ts'
import type { BenchMeta, BenchReport, ResultRow } from '../../src/results.ts'
import { withRatios } from '../../src/results.ts'
import type { DriverName, SeriesName } from '../../src/series/types.ts'
import { percentile, summarize } from '../../src/stats.ts'

function row(
  series: SeriesName,
  medianMs: number | null,
  extra: Partial<ResultRow> = {},
  driver: DriverName = 'postgres.js',
): ResultRow {
  return {
    series,
    driver,
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

  test('a round of reports against its connections: exact alone, in sums together, openings apart', () => {
    const r = (roundTrips: number, connectRoundTrips = 0) => ({ roundTrips, connectRoundTrips })
    const c = (roundTrips: number, opening = 0) => ({ roundTrips, opening })
    expect(checkRound([r(2)], [c(2)])).toEqual({ mismatches: 0, unclaimedOpenings: 0 })
    expect(checkRound([r(1)], [c(2)])).toEqual({ mismatches: 1, unclaimedOpenings: 0 })
    // two flushes one after the other on one connection, and a connection opened for nobody
    expect(checkRound([r(1), r(1), r(4, 2)], [c(2), c(4, 2), c(2, 2)])).toEqual({
      mismatches: 0,
      unclaimedOpenings: 2,
    })
    expect(checkRound([r(1), r(1)], [c(3)])).toEqual({ mismatches: 2, unclaimedOpenings: 0 })
    expect(checkRound([r(3, 2), r(1)], [c(2), c(2)])).toEqual({ mismatches: 2, unclaimedOpenings: 0 })
  })
})

describe('ratios and checks', () => {
  const rows = [
    row('raw-sequential', 30),
    row('raw-promise-all', 8),
    row('pipeflush-burst', 3.5),
    row('pipeflush-burst', 3.2, {}, 'pg'),
    row('mikroorm', 36, {}, 'pg'),
    row('pg-pipeline', null, { reason: 'cannot run: test' }, 'pg'),
  ]

  test('ratios against raw-sequential of the same cell and against the RTT', () => {
    const burst = report(rows).results.find(
      (r) => r.series === 'pipeflush-burst' && r.driver === 'postgres.js',
    )
    expect(burst?.speedupVsRawSequential).toBeCloseTo(8.57, 2)
    expect(burst?.ratioVsRawSequential).toBeCloseTo(0.117, 3)
    expect(burst?.ratioVsRtt).toBe(1.4)
    expect(report(rows).results.find((r) => r.series === 'pg-pipeline')?.ratioVsRtt).toBeNull()
  })

  test('the headline targets for each driver pass or fail on the numbers, n/a when missing', () => {
    expect(checkHeadlineTargets(report(rows)).map((c) => c.ok)).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
    ])
    const slow = checkHeadlineTargets(report([row('raw-sequential', 30), row('pipeflush-burst', 6)]))
    expect(slow.map((c) => c.ok)).toEqual([false, false, null, null])
  })

  test('a series that cannot run is in the table, with its reason under it', () => {
    const view = headlineView(report(rows))
    expect(view?.rows.find((r) => r[0] === 'pg-pipeline')?.[1]).toBe('cannot run')
    expect(view?.rows.map((r) => r[0])).toContain('pipeflush-burst (pg)')
    expect(missingLines(report(rows).results)).toEqual(['pg-pipeline: cannot run: test'])
  })

  test('cpu rows get ratios against the raw driver sending the same statements, on the same driver', () => {
    const cpu = (series: SeriesName, cpuMs: number, driver: DriverName) =>
      row(series, 1, { scenario: 'cpu', latencyMs: 0, cpuMs }, driver)
    const r = report([
      cpu('pipeflush-burst', 2.6, 'pg'),
      cpu('raw-pipeline', 2, 'pg'),
      cpu('raw-simple', 1, 'pg'),
      cpu('raw-pipeline', 1, 'postgres.js'),
    ])
    const burst = r.results.find((x) => x.series === 'pipeflush-burst')
    expect([burst?.cpuVsRawPipeline, burst?.cpuVsRawSimple]).toEqual([1.3, 2.6])
    const checks = checkCpuConcurrencyLargeTargets(r)
    expect(
      checks.find(
        (c) => c.text.startsWith('pipeflush-burst (pg): client CPU') && c.text.includes('10 tables'),
      )?.ok,
    ).toBe(true)
  })
})

describe('realistic workload', () => {
  const realistic = (
    driver: DriverName,
    concurrency: number,
    p50Rtt: number,
    p95Rtt: number,
    reportMismatches = 0,
  ) =>
    row(
      'pipeflush-burst',
      20 * p50Rtt,
      {
        scenario: 'realistic',
        latencyMs: 20,
        rttMs: 20,
        concurrency,
        pool: 10,
        p50Rtt,
        p95Rtt,
        reportMismatches,
      },
      driver,
    )

  test('the realistic-mix targets per driver: PASS, FAIL and n/a shown as they are', () => {
    const r = report([
      realistic('postgres.js', 1, 1.05, 1.4),
      realistic('postgres.js', 4, 1.3, 1.9, 2),
      realistic('pg', 1, 1.08, 1.6),
    ])
    expect(checkRealisticTargets(r).map((c) => c.ok)).toEqual([
      true,
      true,
      false,
      true,
      false,
      true,
      false,
      null,
      null,
      true,
    ])
    expect(mismatchBanner(r)).toMatch(/2 of \d+ pipeflush flush reports DIFFER/)
    expect(mismatchBanner(report([realistic('pg', 1, 1, 1)]))).toBeUndefined()
  })

  test('one table per latency and concurrency, mismatches loud', () => {
    const views = realisticViews(report([realistic('pg', 4, 1.1, 1.5, 3)]))
    expect(views.map((v) => v.title)).toEqual([
      expect.stringMatching(/^Realistic mix at 20 ms, 4 at a time, cold pools of 10/),
    ])
    expect(views[0]?.rows[0]).toContain('!!! 3 !!!')
  })
})

describe('format', () => {
  test('tables and numbers', () => {
    expect(textTable(['a', 'bb'], [['x', '1']], ['left', 'right'])).toBe('a  bb\n-  --\nx   1')
    expect(markdownTable(['a|b'], [['1']], ['right'])).toBe('| a\\|b |\n|---:|\n| 1 |')
    expect([ms(1.234), ms(12.34), ms(123.4), ms(null)]).toEqual(['1.23', '12.3', '123', '-'])
  })
})
