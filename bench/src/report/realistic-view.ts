import { type BenchReport, type ResultRow, rowId } from '../results.ts'
import { bySeries } from '../series/types.ts'
import { ms, num } from './format.ts'
import { missingLines, type View } from './views.ts'

/** `in sequence` / `4 at a time`. */
export function concurrencyLabel(concurrency: number | undefined): string {
  return concurrency === 1 ? 'in sequence' : `${concurrency ?? '?'} at a time`
}

/** `1.08` RTT, `-` when missing. */
const rtt = (v: number | null | undefined) => num(v, 2)

/** `3 / 40` (mismatches loudly), or `-` for libraries that report nothing. */
function mismatchCell(r: ResultRow): string {
  if (r.reportMismatches === null || r.reportMismatches === undefined) return '-'
  return r.reportMismatches === 0 ? '0' : `!!! ${r.reportMismatches} !!!`
}

/**
 * The realistic workload, one table per (latency, concurrency): flush wall time in RTTs (p50, p95,
 * p99; the first round of each cold pool), socket round trips per flush beside the reports, report
 * mismatches, connections opened, id fetches, client CPU per flush.
 *
 * @example
 * realisticViews(report).map((v) => v.title)
 */
export function realisticViews(report: BenchReport): View[] {
  const rows = report.results.filter((r) => r.scenario === 'realistic')
  const keys = [...new Set(rows.map((r) => `${r.latencyMs}/${r.concurrency}`))]
  return keys.map((key, index) => {
    const [latencyMs, concurrency] = key.split('/').map(Number) as [number, number]
    const cell = rows.filter((r) => r.latencyMs === latencyMs && r.concurrency === concurrency).sort(bySeries)
    const first = cell.find((r) => r.status === 'ok')
    return {
      title: `Realistic mix at ${latencyMs} ms, ${concurrencyLabel(concurrency)}, cold pools of ${first?.pool ?? report.meta.options['realisticPool'] ?? '?'} (select 1 RTT ${ms(first?.rttMs ?? cell[0]?.rttMs)} ms)`,
      headers: [
        'series',
        'flushes',
        'p50 RTT',
        'p95 RTT',
        'p99 RTT',
        'first round p50 RTT',
        '1-RT flushes: n, p50 / p95 RTT',
        'p50 ms',
        'socket RT/flush',
        'socket RT p95 / max',
        'reported RT/flush',
        'report != socket',
        'unclaimed openings RT',
        'connected',
        'id fetches',
        'client CPU ms/flush',
      ],
      align: ['left', ...Array.from({ length: 15 }, () => 'right' as const)],
      rows: cell.map((r) =>
        r.status === 'ok'
          ? [
              rowId(r),
              String(r.samples),
              rtt(r.p50Rtt),
              rtt(r.p95Rtt),
              rtt(r.p99Rtt),
              rtt(r.firstRoundMedianRtt),
              r.oneTripFlushes
                ? `${r.oneTripFlushes}: ${rtt(r.oneTripP50Rtt)} / ${rtt(r.oneTripP95Rtt)}`
                : '-',
              ms(r.medianMs),
              num(r.roundTrips),
              `${num(r.roundTripsP95)} / ${num(r.roundTripsMax)}`,
              num(r.reportedRoundTrips),
              mismatchCell(r),
              num(r.unclaimedOpenings),
              num(r.connectedFlushes),
              num(r.idFetches),
              ms(r.cpuMs),
            ]
          : [rowId(r), r.status, ...Array.from({ length: 14 }, () => '')],
      ),
      note:
        index < keys.length - 1
          ? undefined
          : `Each run: the shop reseeded, a fresh client (a cold pool), ${first?.samples && first.runs ? Math.round(first.samples / first.runs) : '?'} generated units of work (seeded PRNG: the same units for every library); each round's units read and change rows, then flush together. Wall time of the flush only, in RTTs of select 1. 1-RT flushes: those whose report says one round trip (no id fetch, no connection opened), to tell extra round trips from time spent otherwise. Socket RT: round trips at the socket while the flushes ran, per flush (in sequence exactly each flush's; four at a time the p95/max are per connection and round). Four at a time the reports are checked in sums per round, the round trips of opening connections apart; unclaimed openings: connections the pool opened meanwhile for a reservation another connection served first (no flush waited for them; counted in socket RT/flush).`,
      missing: missingLines(cell),
    }
  })
}
