import { type BenchReport, type ResultRow, rowId, seriesIdsOf } from '../results.ts'
import { bySeries } from '../series/types.ts'
import type { Align } from './format.ts'
import { ms, num, rowsLabel, times } from './format.ts'

/** A titled table, rendered as text or markdown. */
export interface View {
  readonly title: string
  readonly headers: readonly string[]
  readonly rows: readonly (readonly string[])[]
  readonly align: readonly Align[]
  readonly note?: string
  /** Why some rows have no numbers (one line per series and reason). */
  readonly missing?: readonly string[]
}

/** The cell the headline targets are about (2 ms, 10 tables, 1 row), or the nearest one measured. */
export function headlineCell(
  report: BenchReport,
): { latencyMs: number; tables: number; rowsPerTable: number } | undefined {
  const matrix = report.results.filter((r) => r.scenario === 'matrix')
  if (matrix.length === 0) return undefined
  const pick = (values: number[], want: number) =>
    values.reduce((best, v) => (Math.abs(v - want) < Math.abs(best - want) ? v : best))
  const latencyMs = pick([...new Set(matrix.map((r) => r.latencyMs))], 2)
  const tables = pick([...new Set(matrix.filter((r) => r.latencyMs === latencyMs).map((r) => r.tables))], 10)
  const rowsPerTable = Math.min(...matrix.map((r) => r.rowsPerTable))
  return { latencyMs, tables, rowsPerTable }
}

/** Short status for a row without numbers; the reason goes under the table (see {@link missingLines}). */
function why(row: ResultRow): string {
  return row.status === 'unavailable' ? 'cannot run' : 'failed'
}

/** One line per series (and distinct reason) of `rows` that has no numbers. */
export function missingLines(rows: readonly ResultRow[]): string[] {
  const lines = new Set<string>()
  for (const r of rows)
    if (r.status !== 'ok')
      lines.add(`${rowId(r)}: ${r.status === 'unavailable' ? '' : 'failed: '}${r.reason ?? r.status}`)
  return [...lines]
}

/** `8.1x faster`, `baseline`, `1.08x slower`. */
function speedup(r: ResultRow): string {
  const s = r.speedupVsRawSequential
  if (s === null || s === undefined) return '-'
  if (r.series === 'raw-sequential') return 'baseline'
  return s >= 1 ? `${times(s)} faster` : `${num(1 / s)}x slower`
}

/** Every series at the headline cell: median, p95, samples, round trips, ratios, cold figure. */
export function headlineView(report: BenchReport): View | undefined {
  const cell = headlineCell(report)
  if (!cell) return undefined
  const rows = report.results
    .filter(
      (r) =>
        r.scenario === 'matrix' &&
        r.latencyMs === cell.latencyMs &&
        r.tables === cell.tables &&
        r.rowsPerTable === cell.rowsPerTable,
    )
    .sort(bySeries)
  const rtt = rows[0]?.rttMs
  return {
    title: `${cell.latencyMs} ms injected latency, ${cell.tables} tables x ${rowsLabel(cell.rowsPerTable)} (select 1 RTT ${ms(rtt)} ms)`,
    headers: [
      'series',
      'median ms',
      'p95 ms',
      'samples',
      'round trips',
      'vs raw-sequential',
      'vs RTT',
      'client CPU ms',
      'cold ms',
      'cold round trips',
    ],
    align: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
    rows: rows.map((r) =>
      r.status === 'ok'
        ? [
            rowId(r),
            ms(r.medianMs),
            ms(r.p95Ms),
            String(r.samples),
            num(r.roundTrips),
            speedup(r),
            times(r.ratioVsRtt),
            ms(r.cpuMs),
            ms(r.coldMs),
            num(r.coldRoundTrips),
          ]
        : [rowId(r), why(r), '', '', '', '', '', '', '', ''],
    ),
    missing: missingLines(rows),
  }
}

/**
 * One grid per (latency, rows): series down, tables across, `median ms (round trips)` in each cell,
 * or (`cpu`) the client CPU per flush in ms.
 */
export function matrixViews(report: BenchReport, value: 'time' | 'cpu' = 'time'): View[] {
  const matrix = report.results.filter((r) => r.scenario === 'matrix')
  const keys = [...new Set(matrix.map((r) => `${r.latencyMs}/${r.rowsPerTable}`))]
  return keys.map((key) => {
    const [latencyMs, rowsPerTable] = key.split('/').map(Number) as [number, number]
    const rows = matrix.filter((r) => r.latencyMs === latencyMs && r.rowsPerTable === rowsPerTable)
    const tables = [...new Set(rows.map((r) => r.tables))].sort((a, b) => a - b)
    const what = value === 'cpu' ? 'client CPU ms per flush' : 'median ms (round trips)'
    return {
      title: `${latencyMs} ms, ${rowsLabel(rowsPerTable)} per table: ${what} by tables touched, RTT ${ms(rows[0]?.rttMs)} ms`,
      headers: ['series', ...tables.map((t) => `${t} ${t === 1 ? 'table' : 'tables'}`)],
      align: ['left', ...tables.map(() => 'right' as const)],
      rows: seriesIdsOf(rows).map((id) => [
        id,
        ...tables.map((t) => {
          const r = rows.find((x) => rowId(x) === id && x.tables === t)
          if (!r) return ''
          if (r.status !== 'ok') return r.status
          return value === 'cpu' ? ms(r.cpuMs) : `${ms(r.medianMs)} (${num(r.roundTrips, 1)})`
        }),
      ]),
      missing: value === 'cpu' ? [] : missingLines(rows),
    }
  })
}

/** The large flush: one table, 10,000 / 100,000 rows. */
export function largeView(report: BenchReport): View | undefined {
  const rows = report.results
    .filter((r) => r.scenario === 'large')
    .sort((a, b) => a.rowsPerTable - b.rowsPerTable || bySeries(a, b))
  if (rows.length === 0) return undefined
  return {
    title: `Large flush into one table at ${rows[0]?.latencyMs} ms`,
    headers: [
      'rows',
      'series',
      'median ms',
      'p95 ms',
      'samples',
      'round trips',
      'vs copy',
      'client CPU ms',
      'cold ms',
    ],
    align: ['right', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
    rows: rows.map((r) => {
      const copy = rows.find((x) => x.series === 'copy' && x.rowsPerTable === r.rowsPerTable)?.medianMs
      return r.status === 'ok'
        ? [
            r.rowsPerTable.toLocaleString('en-US'),
            rowId(r),
            ms(r.medianMs),
            ms(r.p95Ms),
            String(r.samples),
            num(r.roundTrips),
            copy && r.medianMs ? times(r.medianMs / copy) : '-',
            ms(r.cpuMs),
            ms(r.coldMs),
          ]
        : [r.rowsPerTable.toLocaleString('en-US'), rowId(r), why(r), '', '', '', '', '', '']
    }),
    note: '`vs copy`: median / copy median (1.0x = as fast as COPY).',
    missing: missingLines(rows),
  }
}

/** The concurrency run: flushes per second. */
export function concurrencyView(report: BenchReport): View | undefined {
  const rows = report.results.filter((r) => r.scenario === 'concurrency').sort(bySeries)
  const first = rows.find((r) => r.status === 'ok') ?? rows[0]
  if (!first) return undefined
  return {
    title: `Concurrency: ${first.workers ?? report.meta.options['concurrency']} concurrent units of work (${first.tables} tables x 1 row) on a pool of ${first.pool ?? report.meta.options['pool']} at ${first.latencyMs} ms`,
    headers: [
      'series',
      'flushes/s',
      'median ms',
      'p95 ms',
      'flushes',
      'round trips/flush',
      'client CPU ms/flush',
    ],
    align: ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
    rows: rows.map((r) =>
      r.status === 'ok'
        ? [
            rowId(r),
            num(r.flushesPerSecond, 0),
            ms(r.medianMs),
            ms(r.p95Ms),
            String(r.samples),
            num(r.roundTrips),
            ms(r.cpuMs),
          ]
        : [rowId(r), why(r), '', '', '', '', ''],
    ),
    note: 'Latency per unit of work includes waiting for a free connection.',
    missing: missingLines(rows),
  }
}

/** The RTT of `select 1` at each latency. */
export function rttView(report: BenchReport): View {
  return {
    title: 'select 1 through the proxy (RTT)',
    headers: ['injected latency', 'median ms', 'p95 ms', 'samples', 'round trips'],
    align: ['right', 'right', 'right', 'right', 'right'],
    rows: report.rtt.map((r) => [
      `${r.latencyMs} ms`,
      ms(r.medianMs),
      ms(r.p95Ms),
      String(r.samples),
      num(r.roundTrips),
    ]),
  }
}
