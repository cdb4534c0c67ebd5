import type { BenchReport } from '../results.ts'
import { ms, times } from './format.ts'
import type { View } from './views.ts'

/**
 * The numbers "the seed" published: Joist's *Initial Pipelining Benchmark* post, which measured three
 * ways of sending one transaction's inserts with postgres.js (awaited one by one, returned as an array
 * from `sql.begin`, in one `Promise.all`; mitata averages, toxiproxy downstream latency, node 23,
 * i9-10885H): `[latencyMs, statements, sequential, string[], Promise.all]` in ms per transaction.
 */
export const SEED_PUBLISHED: readonly (readonly [number, number, number, number, number])[] = [
  [1, 10, 15.8, 4.16, 4.21],
  [1, 20, 30.43, 4.55, 4.51],
  [2, 10, 28.85, 7.27, 7.54],
  [2, 20, 55.05, 9.17, 10.13],
]

/**
 * The seed's published numbers beside this run's raw series in the same cells (statements =
 * tables, 1 row each). Means are compared with the article's averages; medians given as well.
 */
export function seedView(report: BenchReport): View | undefined {
  const find = (series: string, latencyMs: number, tables: number) =>
    report.results.find(
      (r) =>
        r.scenario === 'matrix' &&
        r.series === series &&
        r.driver === 'postgres.js' &&
        r.latencyMs === latencyMs &&
        r.tables === tables &&
        r.rowsPerTable === 1 &&
        r.status === 'ok',
    )
  const rows: string[][] = []
  for (const [latencyMs, statements, ...published] of SEED_PUBLISHED) {
    const cases = ['raw-sequential', 'raw-string-array', 'raw-promise-all'] as const
    const ours = cases.map((c) => find(c, latencyMs, statements))
    if (ours.every((o) => !o)) continue
    cases.forEach((c, i) => {
      const o = ours[i]
      rows.push([
        `${latencyMs} ms`,
        String(statements),
        c,
        String(published[i] ?? ''),
        ms(o?.meanMs),
        ms(o?.medianMs),
        i === 0 ? '' : times((published[0] ?? 0) / (published[i] ?? 1)),
        i === 0 || !ours[0]?.meanMs || !o?.meanMs ? '' : times(ours[0].meanMs / o.meanMs),
      ])
    })
    const burst = find('pipeflush-burst', latencyMs, statements)
    if (burst)
      rows.push([
        `${latencyMs} ms`,
        String(statements),
        'pipeflush-burst (postgres.js)',
        '',
        ms(burst.meanMs),
        ms(burst.medianMs),
        '',
        ours[0]?.meanMs && burst.meanMs ? times(ours[0].meanMs / burst.meanMs) : '',
      ])
  }
  if (rows.length === 0) return undefined
  return {
    title: "The seed's published numbers beside this run",
    headers: [
      'latency',
      'statements',
      'case',
      'seed avg ms',
      'this run mean ms',
      'this run median ms',
      'seed speedup',
      'this run speedup',
    ],
    align: ['right', 'right', 'left', 'right', 'right', 'right', 'right', 'right'],
    rows,
    note: 'Seed: postgres.js + mitata, node 23, i9-10885H, toxiproxy in Docker. Speedup = sequential / case (means). One insert per table (statements = tables touched).',
  }
}
