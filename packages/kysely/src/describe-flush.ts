import type { FlushReport } from '@pipeflush/core'

/**
 * One line describing a flush report: mode, rows written, statements, waves, round trips, time, and
 * whether ids were fetched first or the cold (not yet prepared) path was taken.
 *
 * @example
 * describeFlush(await em.flush())
 * // 'burst: +12 ~0 -0 rows, 5 statements in 3 waves, 1 round trip, 2.4 ms'
 */
export function describeFlush(report: FlushReport): string {
  const rows = `+${report.inserted} ~${report.updated} -${report.deleted} rows`
  const statements = `${report.statements} statement${report.statements === 1 ? '' : 's'} in ${report.waves} wave${report.waves === 1 ? '' : 's'}`
  const trips = `${report.roundTrips} round trip${report.roundTrips === 1 ? '' : 's'}`
  const notes = [report.idFetch ? 'ids fetched' : '', report.cold ? 'cold' : ''].filter(Boolean)
  return `${report.mode}: ${rows}, ${statements}, ${trips}, ${report.durationMs.toFixed(1)} ms${notes.length ? ` (${notes.join(', ')})` : ''}`
}
