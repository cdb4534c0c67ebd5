import type { RealisticStep } from './matrix.ts'
import type { RealisticMeasurement, RealisticOptions } from './measure/realistic-run.ts'
import type { ResultRow } from './results.ts'
import { mean, percentile, round, summarize, timedFields } from './stats.ts'

const sorted = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)

/**
 * The result row of a realistic measurement: flush wall times (ms and in RTTs: p50, p95, p99), socket
 * round trips per flush beside the reports, mismatches, connections opened, client CPU per flush.
 * `tables` is the mean number of tables a flush writes, `rowsPerTable` the mean rows per such table.
 *
 * @example
 * realisticRow(step, measurement, options, 20.6).p95Rtt // 1.31
 */
export function realisticRow(
  step: RealisticStep,
  m: RealisticMeasurement,
  options: RealisticOptions,
  rttMs: number,
): ResultRow {
  const s = summarize(m.flushes.map((f) => f.wallMs))
  const inRtt = (ms: number) => round(ms / rttMs, 2)
  const first = m.flushes.filter((f) => f.first).map((f) => f.wallMs)
  const reports = m.flushes.flatMap((f) => (f.report ? [f.report] : []))
  const socket = sorted(m.socketRoundTrips)
  const tables = mean(m.flushes.map((f) => f.tables))
  const rows = mean(m.flushes.map((f) => f.rows))
  const hasReports = reports.length > 0
  const oneTrip = sorted(m.flushes.filter((f) => f.report?.roundTrips === 1).map((f) => f.wallMs))
  return {
    scenario: 'realistic',
    series: step.series.name,
    driver: step.series.driver,
    latencyMs: step.latencyMs,
    tables: round(tables, 1),
    rowsPerTable: round(rows / tables, 1),
    concurrency: step.concurrency,
    runs: options.runs,
    pool: options.pool,
    status: 'ok',
    ...timedFields(s, rttMs),
    firstRoundMedianRtt: first.length > 0 ? inRtt(percentile(sorted(first), 50)) : null,
    roundTrips: round(m.socketTotal / Math.max(1, m.flushes.length), 2),
    roundTripsP50: percentile(socket, 50),
    roundTripsP95: percentile(socket, 95),
    roundTripsMin: socket[0] ?? null,
    roundTripsMax: socket[socket.length - 1] ?? null,
    reportedRoundTrips: hasReports ? round(mean(reports.map((r) => r.roundTrips)), 2) : null,
    reportMismatches: hasReports ? m.mismatches : null,
    mismatchedRounds: hasReports ? m.mismatchedRounds : null,
    unclaimedOpenings: hasReports ? m.unclaimedOpenings : null,
    connectedFlushes: hasReports ? reports.filter((r) => r.connected).length : null,
    connectRoundTrips: hasReports ? reports.reduce((n, r) => n + r.connectRoundTrips, 0) : null,
    idFetches: hasReports ? reports.filter((r) => r.idFetch).length : null,
    oneTripFlushes: hasReports ? oneTrip.length : null,
    oneTripP50Rtt: oneTrip.length > 0 ? inRtt(percentile(oneTrip, 50)) : null,
    oneTripP95Rtt: oneTrip.length > 0 ? inRtt(percentile(oneTrip, 95)) : null,
    cpuMs: round(m.cpuMs),
    ratioVsRawSequential: null,
    speedupVsRawSequential: null,
    ratioVsRtt: inRtt(s.medianMs),
  }
}
