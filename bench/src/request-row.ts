import type { RequestStep } from './matrix.ts'
import type { RequestMeasurement, RequestOptions } from './measure/request-run.ts'
import { GRAPH_TABLES } from './request/request.ts'
import type { ResultRow } from './results.ts'
import { mean, percentile, round, summarize, timedFields } from './stats.ts'

const sorted = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)

/**
 * The result row of the request scenario on one library: request wall time (median, p95, and in RTTs),
 * round trips per request at the socket (the load's and the flush's medians beside them), pipeflush's
 * reports against the socket, id fetches, client CPU per request. `tables` is the tables the graph
 * spans.
 *
 * @example
 * requestRow(step, measurement, options, 20.6).p50Rtt // 2.05
 */
export function requestRow(
  step: RequestStep,
  m: RequestMeasurement,
  options: RequestOptions,
  rttMs: number,
): ResultRow {
  const s = summarize(m.samples.map((r) => r.wallMs))
  const inRtt = (ms: number) => round(ms / rttMs, 2)
  const trips = sorted(m.samples.map((r) => r.loadRoundTrips + r.flushRoundTrips))
  const reports = m.samples.flatMap((r) => (r.report ? [r.report] : []))
  const hasReports = reports.length > 0
  return {
    scenario: 'request',
    series: step.series.name,
    driver: step.series.driver,
    ...(step.series.variant ? { variant: step.series.variant } : {}),
    latencyMs: step.latencyMs,
    tables: GRAPH_TABLES,
    rowsPerTable: 0,
    pool: options.pool,
    status: 'ok',
    ...timedFields(s, rttMs),
    loadMedianMs: round(percentile(sorted(m.samples.map((r) => r.loadMs)), 50)),
    roundTrips: round(mean(trips), 2),
    roundTripsP50: percentile(trips, 50),
    roundTripsP95: percentile(trips, 95),
    roundTripsMin: trips[0] ?? null,
    roundTripsMax: trips[trips.length - 1] ?? null,
    loadRoundTrips: percentile(sorted(m.samples.map((r) => r.loadRoundTrips)), 50),
    flushRoundTrips: percentile(sorted(m.samples.map((r) => r.flushRoundTrips)), 50),
    reportedRoundTrips: hasReports ? round(mean(reports.map((r) => r.roundTrips)), 2) : null,
    reportMismatches: hasReports ? m.mismatches : null,
    idFetches: hasReports ? reports.filter((r) => r.idFetch).length : null,
    connectedFlushes: hasReports ? reports.filter((r) => r.connected).length : null,
    cpuMs: round(m.cpuMs),
    ratioVsRawSequential: null,
    speedupVsRawSequential: null,
    ratioVsRtt: inRtt(s.medianMs),
  }
}
