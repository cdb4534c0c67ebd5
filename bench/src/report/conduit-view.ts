import { CONDUIT_REQUESTS, type ConduitRequest, isWrite } from '../conduit/conduit-requests.ts'
import { type BenchReport, type ResultRow, rowId } from '../results.ts'
import { bySeries, DRIVERS, seriesId } from '../series/types.ts'
import { ms, num, times } from './format.ts'
import type { TargetCheck } from './headline-targets.ts'
import { missingLines, type View } from './views.ts'

/** The latency of the Conduit targets. */
const CONDUIT_LATENCY = 20
/** pipeflush's p50 per request, in RTTs: a GET within 1.15 (one round trip and a little), a write within 2.3. */
const GET_P50_RTT = 1.15
const WRITE_P50_RTT = 2.3

/** What each request is called in tables. */
export const CONDUIT_REQUEST_LABELS: Readonly<Record<ConduitRequest, string>> = {
  feed: 'feed',
  article: 'article page',
  create: 'create article',
  favorite: 'favorite',
}

const rtt = (v: number | null | undefined) => num(v, 2)

/** `0`, or loudly the flushes whose report differs from the socket; `-` for libraries that report nothing. */
function mismatchCell(r: ResultRow): string {
  if (r.reportMismatches === null || r.reportMismatches === undefined) return '-'
  return r.reportMismatches === 0 ? '0' : `!!! ${r.reportMismatches} !!!`
}

/** `1 (1 / 1)`: socket round trips per request, median (min / max), and connection openings if any. */
function tripsCell(r: ResultRow): string {
  const openings = r.openingRoundTrips ? `, ${r.openingRoundTrips} opening` : ''
  return `${num(r.roundTripsP50)} (${num(r.roundTripsMin)} / ${num(r.roundTripsMax)}${openings})`
}

/**
 * The Conduit cell, one table per latency: per request and library, the request's median and p95 (ms
 * and RTTs), its median against the hand-written floor (`pg-pipeline`), round trips at the socket
 * (median, min / max) beside the target, pipeflush's flush reports against the socket and id fetches,
 * client CPU per request.
 *
 * @example
 * conduitViews(report)[0]?.title // 'Conduit at 20 ms: four requests, each a unit of work (select 1 RTT 20.9 ms)'
 */
export function conduitViews(report: BenchReport): View[] {
  const rows = report.results.filter((r) => r.scenario === 'conduit')
  return [...new Set(rows.map((r) => r.latencyMs))].map((latencyMs) => {
    const at = rows.filter((r) => r.latencyMs === latencyMs)
    const byRequest = (r: ResultRow) => CONDUIT_REQUESTS.indexOf(r.conduitRequest ?? 'feed')
    const cell = [...at].sort((a, b) => byRequest(a) - byRequest(b) || bySeries(a, b))
    const first = cell.find((r) => r.status === 'ok')
    const floor = (r: ResultRow) =>
      at.find((x) => x.series === 'pg-pipeline' && x.conduitRequest === r.conduitRequest)?.medianMs
    return {
      title: `Conduit at ${latencyMs} ms: four requests of the Conduit example, each a unit of work (select 1 RTT ${ms(first?.rttMs ?? cell[0]?.rttMs)} ms)`,
      headers: [
        'request',
        'series',
        'requests',
        'p50 ms',
        'p95 ms',
        'p50 RTT',
        'p95 RTT',
        'p50 vs pg-pipeline',
        'socket RT p50 (min / max)',
        'target RT',
        'flush RT reported',
        'report != socket',
        'id fetches',
        'client CPU ms p50 / mean',
      ],
      align: ['left', 'left', ...Array.from({ length: 12 }, () => 'right' as const)],
      rows: cell.map((r) => {
        const request = CONDUIT_REQUEST_LABELS[r.conduitRequest ?? 'feed']
        if (r.status !== 'ok') return [request, rowId(r), r.status, ...Array.from({ length: 11 }, () => '')]
        const base = floor(r)
        return [
          request,
          rowId(r),
          String(r.samples),
          ms(r.medianMs),
          ms(r.p95Ms),
          rtt(r.p50Rtt),
          rtt(r.p95Rtt),
          base && r.medianMs ? times(r.medianMs / base) : '-',
          tripsCell(r),
          num(r.targetRoundTrips),
          num(r.reportedRoundTrips),
          mismatchCell(r),
          num(r.idFetches),
          `${ms(r.cpuP50Ms)} / ${ms(r.cpuMs)}`,
        ]
      }),
      note: `One round of four requests after another on a warm client of each library (pool of ${first?.pool ?? '?'}), the Conduit tables reseeded per library (200 users following 12 each, 1,000 articles with 3 tags, 4 favorites and 5 comments each). feed: a reader's page of the followed authors' articles (newest first, 20) with author profiles and the reader's following flag, tags, the reader's favorited flag, favoritesCount and the total articlesCount; article page: an article by slug in the same view with its comments (newest first) and their authors; create article: read the author, insert the article, its tags got or created and its tag links; favorite: read the article's view, insert the favorite, answer the view with the new count. Timed by the clock from the request's start to its answer (the spec's body); round trips at the sockets of every connection of the client. pipeflush: the example's own repositories and PipeflushStore (a unit of work per request, burst); MikroORM: find with populate (joined, populateWhere for the reader's rows, a formula count) and em.count side by side, em.create and em.flush() for a write; pg-pipeline: hand-written SQL on a pg.Pool with pipeline: true, a request's reads in one Promise.all, a write as BEGIN + statements + COMMIT in one Promise.all (the floor). An id fetch costs pipeflush one more round trip on the flush that needs it.`,
      missing: missingLines(cell),
    }
  })
}

/** `feed 1.08, article page 1.02`: each row's value, labelled by request. */
function perRequest(rows: readonly ResultRow[], value: (r: ResultRow) => string): string {
  return rows.map((r) => `${CONDUIT_REQUEST_LABELS[r.conduitRequest ?? 'feed']} ${value(r)}`).join(', ')
}

/** Whether every request of `r` took its target round trips at the socket, an id fetch +1, reports equal to the socket. */
function exactTrips(r: ResultRow): boolean {
  const target = r.targetRoundTrips ?? Number.NaN
  const fetches = r.idFetches ?? 0
  return (
    r.roundTripsMin === target &&
    r.roundTripsP50 === target &&
    (r.roundTripsMax ?? Number.NaN) <= target + (fetches > 0 ? 1 : 0) &&
    (r.reportMismatches ?? 0) === 0 &&
    (r.openingRoundTrips ?? 0) === 0
  )
}

/**
 * The Conduit targets, per driver: pipeflush-burst at 20 ms with a median within 1.15 RTT per GET
 * (feed, article page) and 2.3 RTT per write (create article, favorite); and at the socket exactly 1
 * round trip per GET and 2 per write, every request (a flush that fetched an id block first: one more,
 * as its report says; every report equal to the socket).
 *
 * @example
 * checkConduitTargets(report).filter((c) => c.ok === false).map((c) => c.text)
 */
export function checkConduitTargets(report: BenchReport): TargetCheck[] {
  const checks: TargetCheck[] = []
  for (const driver of DRIVERS) {
    const name = seriesId('pipeflush-burst', driver)
    const rows = CONDUIT_REQUESTS.map((request) =>
      report.results.find(
        (r) =>
          r.scenario === 'conduit' &&
          r.conduitRequest === request &&
          r.series === 'pipeflush-burst' &&
          r.driver === driver &&
          r.latencyMs === CONDUIT_LATENCY &&
          r.status === 'ok',
      ),
    )
    const measured = rows.filter((r): r is ResultRow => r?.p50Rtt !== null && r?.p50Rtt !== undefined)
    const detail = `not measured in this run (${name} Conduit cell at ${CONDUIT_LATENCY} ms)`
    for (const [kind, limit, write] of [
      ['GET (feed, article page)', GET_P50_RTT, false],
      ['write (create article, favorite)', WRITE_P50_RTT, true],
    ] as const) {
      const text = `${name}, Conduit at ${CONDUIT_LATENCY} ms: p50 <= ${limit} RTT per ${kind}`
      const mine = measured.filter((r) => isWrite(r.conduitRequest ?? 'feed') === write)
      if (mine.length < 2) {
        checks.push({ text, ok: null, detail })
        continue
      }
      checks.push({
        text,
        ok: mine.every((r) => (r.p50Rtt ?? Number.POSITIVE_INFINITY) <= limit),
        detail: `${perRequest(mine, (r) => rtt(r.p50Rtt))} RTT (RTT ${ms(mine[0]?.rttMs)} ms, ${mine[0]?.samples} requests each)`,
      })
    }
    const text = `${name}, Conduit at ${CONDUIT_LATENCY} ms: 1 round trip per GET, 2 per write at the socket, every request (an id fetch +1, as reported)`
    if (measured.length < CONDUIT_REQUESTS.length) checks.push({ text, ok: null, detail })
    else
      checks.push({
        text,
        ok: measured.every(exactTrips),
        detail: `${perRequest(measured, (r) => `${num(r.roundTripsMin)}-${num(r.roundTripsMax)}${r.idFetches ? ` (${r.idFetches} id fetch${r.idFetches > 1 ? 'es' : ''})` : ''}`)}; reports != socket: ${measured.reduce((n, r) => n + (r.reportMismatches ?? 0), 0)}`,
      })
  }
  return checks
}
