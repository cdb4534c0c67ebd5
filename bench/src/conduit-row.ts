import { CONDUIT_REQUESTS, isWrite } from './conduit/conduit-requests.ts'
import type { ConduitStep } from './matrix.ts'
import type { ConduitOptions, ConduitSample } from './measure/conduit-run.ts'
import type { ResultRow } from './results.ts'
import { mean, percentile, round, summarize, timedFields } from './stats.ts'

/** The Conduit tables (`app_user`, `follow`, `article`, `tag`, `article_tag`, `favorite`, `comment`). */
const CONDUIT_TABLES = 7

const sorted = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)

/**
 * The result rows of the Conduit cell on one library, one per request: its wall time (median, p95,
 * and in RTTs), round trips at the socket (median, min, max; connection openings apart), pipeflush's
 * flush reports against the socket and id fetches, client CPU per request (mean, and median as
 * `cpuP50Ms`). `tables` is the Conduit tables.
 *
 * @example
 * conduitRows(step, samples, options, 20.6).map((r) => r.conduitRequest) // ['feed', 'article', 'create', 'favorite']
 */
export function conduitRows(
  step: ConduitStep,
  samples: readonly ConduitSample[],
  options: Pick<ConduitOptions, 'pool'>,
  rttMs: number,
): ResultRow[] {
  const inRtt = (ms: number) => round(ms / rttMs, 2)
  return CONDUIT_REQUESTS.map((request): ResultRow => {
    const mine = samples.filter((s) => s.request === request)
    const s = summarize(mine.map((r) => r.wallMs))
    const trips = sorted(mine.map((r) => r.roundTrips))
    const flushes = mine.flatMap((r) => (r.flush ? [r.flush] : []))
    const reports = flushes.map((f) => f.report)
    const hasReports = reports.length > 0
    return {
      scenario: 'conduit',
      conduitRequest: request,
      series: step.series.name,
      driver: step.series.driver,
      latencyMs: step.latencyMs,
      tables: CONDUIT_TABLES,
      rowsPerTable: 0,
      pool: options.pool,
      status: 'ok',
      ...timedFields(s, rttMs),
      targetRoundTrips: isWrite(request) ? 2 : 1,
      roundTrips: round(mean(trips), 2),
      roundTripsP50: percentile(trips, 50),
      roundTripsP95: percentile(trips, 95),
      roundTripsMin: trips[0] ?? null,
      roundTripsMax: trips[trips.length - 1] ?? null,
      openingRoundTrips: mine.reduce((n, r) => n + r.openingRoundTrips, 0),
      reportedRoundTrips: hasReports ? round(mean(reports.map((r) => r.roundTrips)), 2) : null,
      reportMismatches: hasReports
        ? flushes.filter((f) => f.socketRoundTrips !== f.report.roundTrips).length
        : null,
      idFetches: hasReports ? reports.filter((r) => r.idFetch).length : null,
      connectedFlushes: hasReports ? reports.filter((r) => r.connected).length : null,
      cpuMs: round(mean(mine.map((r) => r.cpuMs))),
      cpuP50Ms: round(percentile(sorted(mine.map((r) => r.cpuMs)), 50)),
      ratioVsRawSequential: null,
      speedupVsRawSequential: null,
      ratioVsRtt: inRtt(s.medianMs),
    }
  })
}
