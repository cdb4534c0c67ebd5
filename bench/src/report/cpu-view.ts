import { type BenchReport, rowId } from '../results.ts'
import { bySeries } from '../series/types.ts'
import { ms, num, ratio, rowsLabel } from './format.ts'
import { missingLines, type View } from './views.ts'

/** Microseconds, whole. */
const us = (v: number | null | undefined) =>
  v === null || v === undefined ? '-' : String(Math.round(v * 1000))

/**
 * The side-by-side CPU measurement, one table per work shape: client CPU per flush of pipeflush-burst
 * and of the raw driver sending the same statements (pipelined, and as one simple-protocol message),
 * per driver, with ratios; server backend CPU where it was read.
 *
 * @example
 * cpuViews(report)[0]?.title // 'Client CPU per flush, 10 tables x 1 row, side by side at 0 ms (1500 flushes each)'
 */
export function cpuViews(report: BenchReport): View[] {
  const rows = report.results.filter((r) => r.scenario === 'cpu')
  const shapes = [...new Set(rows.map((r) => `${r.tables}/${r.rowsPerTable}`))]
  return shapes.map((shape) => {
    const [tables, rowsPerTable] = shape.split('/').map(Number) as [number, number]
    const cell = rows.filter((r) => r.tables === tables && r.rowsPerTable === rowsPerTable).sort(bySeries)
    const first = cell.find((r) => r.status === 'ok')
    return {
      title: `Client CPU per flush, ${tables} tables x ${rowsLabel(rowsPerTable)}, side by side at ${first?.latencyMs ?? '?'} ms (${first?.samples ?? '?'} flushes each)`,
      headers: [
        'series',
        'client CPU µs/flush',
        'vs raw-pipeline',
        'vs raw-simple',
        'server CPU µs/flush',
        'median ms',
        'p95 ms',
        'round trips',
      ],
      align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
      rows: cell.map((r) =>
        r.status === 'ok'
          ? [
              rowId(r),
              us(r.cpuMs),
              r.series === 'raw-pipeline' ? 'baseline' : ratio(r.cpuVsRawPipeline),
              r.series === 'raw-simple' ? 'baseline' : ratio(r.cpuVsRawSimple),
              us(r.serverCpuMs),
              ms(r.medianMs),
              ms(r.p95Ms),
              num(r.roundTrips),
            ]
          : [rowId(r), r.status, '', '', '', '', '', ''],
      ),
      note: 'Each series on its own connection, taking turns in chunks in one process. raw-pipeline / raw-simple send the statements pipeflush sends (its inserts with ids: one-row statements for one row, unnest for several) without pipeflush; ratios are against them on the same driver. Client CPU: process.cpuUsage over the timed flushes; server CPU: the backend\'s utime + stime (10 ms ticks), "-" where unreadable.',
      missing: missingLines(cell),
    }
  })
}
