import type { FlushReport } from '@pipeflush/core'

/**
 * One line describing a flush report: mode, rows written, statements, waves, round trips, time, and
 * whether ids were fetched first or a connection was opened for the flush.
 *
 * @example
 * describeFlush(await em.flush())
 * // 'burst: 12 inserted, 2 updated, 5 statements in 3 waves, 1 round trip, 2.4 ms'
 */
export function describeFlush(report: FlushReport): string {
  const counts = [
    [report.inserted, 'inserted'],
    [report.updated, 'updated'],
    [report.deleted, 'deleted'],
    [report.upserted, 'upserted'],
  ] as const
  const rows = counts.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`)
  const statements = `${plural(report.statements, 'statement')} in ${plural(report.waves, 'wave')}`
  const notes = [
    report.idFetch ? 'ids fetched' : '',
    report.connected ? `connection opened: ${plural(report.connectRoundTrips, 'round trip')}` : '',
  ].filter(Boolean)
  return (
    `${report.mode}: ${rows.length ? rows.join(', ') : 'nothing to write'}, ${statements}, ` +
    `${plural(report.roundTrips, 'round trip')}, ${report.durationMs.toFixed(1)} ms${notes.length ? ` (${notes.join(', ')})` : ''}`
  )
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`
}
