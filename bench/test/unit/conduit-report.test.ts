import { describe, expect, test } from 'vitest'
import { conduitInputs, MAX_CONDUIT_ROUNDS } from '../../src/conduit/conduit-requests.ts'
import { CONDUIT_SEED } from '../../src/conduit/conduit-seed.ts'
import { conduitRows } from '../../src/conduit-row.ts'
import type { ConduitStep } from '../../src/matrix.ts'
import type { ConduitSample } from '../../src/measure/conduit-run.ts'
import { checkConduitTargets, conduitViews } from '../../src/report/conduit-view.ts'
import type { BenchMeta, BenchReport, ResultRow } from '../../src/results.ts'
import type { DriverName, SeriesName } from '../../src/series/types.ts'

function step(name: SeriesName, driver: DriverName): ConduitStep {
  return {
    scenario: 'request',
    cell: 'conduit',
    latencyMs: 20,
    series: {
      name,
      driver,
      id: name,
      description: name,
      unavailableReason: async () => undefined,
      open: async () => {
        throw new Error('not in unit tests')
      },
    },
  }
}

/** Samples of every request: `ms(request, i)` by the clock, `trips(request, i)` at the socket. */
function samples(
  ms: (request: string, i: number) => number,
  trips: (request: string, i: number) => number,
  pipeflush = true,
): ConduitSample[] {
  return Array.from({ length: 10 }, (_, i) =>
    (['feed', 'article', 'create', 'favorite'] as const).map((request): ConduitSample => {
      const roundTrips = trips(request, i)
      const reads = request === 'feed' || request === 'article' ? 1 : 0
      const flushTrips = roundTrips - 1 + reads
      return {
        request,
        wallMs: ms(request, i),
        roundTrips,
        openingRoundTrips: 0,
        cpuMs: 2,
        flush: pipeflush
          ? {
              report: {
                roundTrips: flushTrips,
                connectRoundTrips: 0,
                connected: false,
                idFetch: flushTrips === 2,
              },
              socketRoundTrips: flushTrips,
            }
          : undefined,
      }
    }),
  ).flat()
}

function report(results: ResultRow[]): BenchReport {
  return {
    meta: { options: {}, unavailable: {}, notes: [] } as unknown as BenchMeta,
    rtt: [{ latencyMs: 20, medianMs: 20, p95Ms: 21, samples: 20, roundTrips: 1 }],
    results,
  }
}

const writes = (request: string) => request === 'create' || request === 'favorite'

describe('Conduit cell', () => {
  test('round i asks new favorites for 1,000 rounds, by users who favorited nothing in the seed', () => {
    const pairs = new Set<string>()
    for (let i = 0; i < MAX_CONDUIT_ROUNDS; i++) {
      const { favorite } = conduitInputs(i)
      expect(favorite.reader).toBeGreaterThan(CONDUIT_SEED.favoritingUsers)
      pairs.add(`${favorite.reader} ${favorite.slug}`)
    }
    expect(pairs.size).toBe(MAX_CONDUIT_ROUNDS)
    expect(() => conduitInputs(MAX_CONDUIT_ROUNDS)).toThrow(RangeError)
  })

  test('one row per request: times in RTTs, socket round trips beside the target, reports and id fetches', () => {
    const rows = conduitRows(
      step('pipeflush-burst', 'pg'),
      samples(
        (r) => (writes(r) ? 44 : 22),
        (r, i) => (writes(r) ? 2 : 1) + (r === 'create' && i === 3 ? 1 : 0),
      ),
      { pool: 4 },
      20,
    )
    expect(
      rows.map((r) => [r.conduitRequest, r.p50Rtt, r.roundTripsMin, r.roundTripsMax, r.idFetches]),
    ).toEqual([
      ['feed', 1.1, 1, 1, 0],
      ['article', 1.1, 1, 1, 0],
      ['create', 2.2, 2, 3, 1],
      ['favorite', 2.2, 2, 2, 0],
    ])
    expect(rows.every((r) => r.scenario === 'conduit' && r.reportMismatches === 0)).toBe(true)
    const checks = checkConduitTargets(report(rows))
    expect(checks.map((c) => c.ok)).toEqual([null, null, null, true, true, true])
    expect(checks[5]?.detail).toContain('create article 2-3 (1 id fetch)')
  })

  test('a GET over 1.15 RTT, or a round trip more than the target without an id fetch, FAILs', () => {
    const slow = conduitRows(
      step('pipeflush-burst', 'postgres.js'),
      samples(
        (r) => (r === 'feed' ? 30 : writes(r) ? 44 : 22),
        (r, i) => (writes(r) ? 2 : 1) + (r === 'favorite' && i === 3 ? 1 : 0),
        true,
      ).map((s) =>
        // The extra round trip of favorite 3 is no id fetch: its report says 1, the socket 2.
        s.request === 'favorite' && s.roundTrips === 3 && s.flush
          ? { ...s, flush: { ...s.flush, report: { ...s.flush.report, roundTrips: 1, idFetch: false } } }
          : s,
      ),
      { pool: 4 },
      20,
    )
    const checks = checkConduitTargets(report(slow))
    expect(checks.slice(0, 3).map((c) => c.ok)).toEqual([false, true, false])
    expect(checks[0]?.detail).toContain('feed 1.5')
  })

  test('the table: a row per request and library, against pg-pipeline, libraries without reports shown as -', () => {
    const rows = [
      ...conduitRows(
        step('pipeflush-burst', 'pg'),
        samples(
          (r) => (writes(r) ? 46 : 23),
          (r) => (writes(r) ? 2 : 1),
        ),
        { pool: 4 },
        20,
      ),
      ...conduitRows(
        step('pg-pipeline', 'pg'),
        samples(
          (r) => (writes(r) ? 42 : 21),
          (r) => (writes(r) ? 2 : 1),
          false,
        ),
        { pool: 4 },
        20,
      ),
    ]
    const [view] = conduitViews(report(rows))
    expect(view?.rows.map((r) => [r[0], r[1], r[7], r[8], r[11]])).toEqual([
      ['feed', 'pipeflush-burst (pg)', '1.1x', '1 (1 / 1)', '0'],
      ['feed', 'pg-pipeline', '1.0x', '1 (1 / 1)', '-'],
      ['article page', 'pipeflush-burst (pg)', '1.1x', '1 (1 / 1)', '0'],
      ['article page', 'pg-pipeline', '1.0x', '1 (1 / 1)', '-'],
      ['create article', 'pipeflush-burst (pg)', '1.1x', '2 (2 / 2)', '0'],
      ['create article', 'pg-pipeline', '1.0x', '2 (2 / 2)', '-'],
      ['favorite', 'pipeflush-burst (pg)', '1.1x', '2 (2 / 2)', '0'],
      ['favorite', 'pg-pipeline', '1.0x', '2 (2 / 2)', '-'],
    ])
  })
})
