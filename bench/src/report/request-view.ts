import { type BenchReport, type ResultRow, rowId } from '../results.ts'
import { bySeries, DRIVERS, seriesId } from '../series/types.ts'
import { ms, num } from './format.ts'
import type { TargetCheck } from './headline-targets.ts'
import { missingLines, type View } from './views.ts'

/** The latency of the request target. */
const REQUEST_LATENCY = 20
/** pipeflush's request at the median: within this many RTTs (2 round trips and a little). */
const REQUEST_P50_RTT = 2.2

const rtt = (v: number | null | undefined) => num(v, 2)

/** `3 / 30`: flushes whose report differs from the socket (loudly), `-` for libraries that report nothing. */
function mismatchCell(r: ResultRow): string {
  if (r.reportMismatches === null || r.reportMismatches === undefined) return '-'
  return r.reportMismatches === 0 ? '0' : `!!! ${r.reportMismatches} !!!`
}

/** The faster of MikroORM's strategies in `rows` (by median), as `joined (212 ms vs 281 ms select-in)`. */
export function fasterMikroOrm(rows: readonly ResultRow[]): string | undefined {
  const orm = rows
    .filter((r) => r.series === 'mikroorm' && r.status === 'ok' && r.medianMs !== null)
    .sort((a, b) => (a.medianMs ?? 0) - (b.medianMs ?? 0))
  const [best, other] = orm
  if (!best) return undefined
  return other
    ? `${best.variant} (${ms(best.medianMs)} ms against ${ms(other.medianMs)} ms with ${other.variant})`
    : `${best.variant} (the only one measured)`
}

/**
 * The request scenario, one table per latency: per library, the request's median and p95 (ms and RTTs),
 * round trips per request at the socket (the load's and the flush's), pipeflush's reports against
 * the socket, id fetches, the load's median, client CPU per request.
 *
 * @example
 * requestViews(report)[0]?.title // 'Request at 20 ms: load a customer's graph, change it, flush (select 1 RTT 20.9 ms)'
 */
export function requestViews(report: BenchReport): View[] {
  const rows = report.results.filter((r) => r.scenario === 'request')
  return [...new Set(rows.map((r) => r.latencyMs))].map((latencyMs) => {
    const cell = rows.filter((r) => r.latencyMs === latencyMs).sort((a, b) => bySeries(a, b))
    const first = cell.find((r) => r.status === 'ok')
    const faster = fasterMikroOrm(cell)
    return {
      title: `Request at ${latencyMs} ms: load a customer's graph (4 tables), change it, flush (select 1 RTT ${ms(first?.rttMs ?? cell[0]?.rttMs)} ms)`,
      headers: [
        'series',
        'requests',
        'p50 ms',
        'p95 ms',
        'p50 RTT',
        'p95 RTT',
        'socket RT/request (load + flush)',
        'socket RT min / max',
        'reported flush RT',
        'report != socket',
        'id fetches',
        'load p50 ms',
        'client CPU ms/request',
      ],
      align: ['left', ...Array.from({ length: 12 }, () => 'right' as const)],
      rows: cell.map((r) =>
        r.status === 'ok'
          ? [
              rowId(r),
              String(r.samples),
              ms(r.medianMs),
              ms(r.p95Ms),
              rtt(r.p50Rtt),
              rtt(r.p95Rtt),
              `${num(r.roundTripsP50)} (${num(r.loadRoundTrips)} + ${num(r.flushRoundTrips)})`,
              `${num(r.roundTripsMin)} / ${num(r.roundTripsMax)}`,
              num(r.reportedRoundTrips),
              mismatchCell(r),
              num(r.idFetches),
              ms(r.loadMedianMs),
              ms(r.cpuMs),
            ]
          : [rowId(r), r.status, ...Array.from({ length: 11 }, () => '')],
      ),
      note: `One read-modify-write request after another on a warm client (pool of ${first?.pool ?? '?'}), the shop reseeded per library: load customer c with its purchases, their lines and products; update the customer, its latest purchase, a line and its product; create a purchase with two lines and an audit event; flush. Timed by the clock from the load's start to the flush's end. pipeflush: \`em.load('customer', c, { with })\` then \`em.flush()\`; MikroORM: \`findOneOrFail\` with \`populate\` and each load strategy, then \`em.flush()\`${faster ? ` (faster here: ${faster})` : ''}; raw-pg: a \`pg.Pool\`, one select per level, then BEGIN, each statement awaited, COMMIT. An id fetch costs pipeflush one more round trip on the flush that needs it.`,
      missing: missingLines(cell),
    }
  })
}

/**
 * The request target, per driver: pipeflush-burst serves the request at 20 ms with a median within
 * 2.2 RTT; and in 2 round trips at the socket (median).
 */
export function checkRequestTargets(report: BenchReport): TargetCheck[] {
  const checks: TargetCheck[] = []
  for (const driver of DRIVERS) {
    const name = seriesId('pipeflush-burst', driver)
    const row = report.results.find(
      (r) =>
        r.scenario === 'request' &&
        r.series === 'pipeflush-burst' &&
        r.driver === driver &&
        r.latencyMs === REQUEST_LATENCY &&
        r.status === 'ok',
    )
    const p50 = `${name}, request at ${REQUEST_LATENCY} ms (load a graph of 4 tables, change, flush): p50 <= ${REQUEST_P50_RTT} RTT`
    const trips = `${name}, request at ${REQUEST_LATENCY} ms: 2 round trips at the socket (median)`
    if (!row || row.p50Rtt === null || row.p50Rtt === undefined) {
      const detail = `not measured in this run (${name} request at ${REQUEST_LATENCY} ms)`
      checks.push({ text: p50, ok: null, detail }, { text: trips, ok: null, detail })
      continue
    }
    checks.push({
      text: p50,
      ok: row.p50Rtt <= REQUEST_P50_RTT,
      detail: `${num(row.p50Rtt, 2)} RTT (${ms(row.medianMs)} ms / RTT ${ms(row.rttMs)} ms, ${row.samples} requests)`,
    })
    checks.push({
      text: trips,
      ok: row.roundTripsP50 === 2,
      detail: `${num(row.roundTripsP50)} (load ${num(row.loadRoundTrips)} + flush ${num(row.flushRoundTrips)}; max ${num(row.roundTripsMax)}, ${num(row.idFetches)} id fetches)`,
    })
  }
  return checks
}
