import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import * as vega from 'vega'
import * as vegaLite from 'vega-lite'
import { type BenchReport, type ResultRow, rowId, seriesIdsOf } from '../results.ts'
import { missingLines } from './views.ts'

const RTT_SERIES = '1 RTT (select 1)'

/** Series colours, stable across charts (Tableau 10, grey for the RTT line). */
const COLORS: Readonly<Record<string, string>> = {
  'raw-sequential': '#e15759',
  'raw-string-array': '#ff9da7',
  'raw-promise-all': '#f28e2b',
  'pipeflush-off (postgres.js)': '#9c755f',
  'pipeflush-off (pg)': '#6b4f3f',
  'pipeflush-waves (postgres.js)': '#76b7b2',
  'pipeflush-waves (pg)': '#3f8f8a',
  'pipeflush-burst (postgres.js)': '#4e79a7',
  'pipeflush-burst (pg)': '#1f3f6f',
  'pipeflush-drizzle (postgres.js)': '#a0cbe8',
  'pipeflush-drizzle (pg)': '#5b8fc7',
  mikroorm: '#b07aa1',
  'drizzle (postgres.js)': '#8cd17d',
  'drizzle (pg)': '#2f7d32',
  'pg-pipeline': '#59a14f',
  'raw-pipeline (postgres.js)': '#bab0ac',
  'raw-pipeline (pg)': '#8c8c8c',
  'raw-simple (postgres.js)': '#d4a6c8',
  'raw-simple (pg)': '#9d7660',
  copy: '#edc948',
  [RTT_SERIES]: '#9e9e9e',
}

function colorScale(domain: readonly string[]) {
  return { domain: [...domain], range: domain.map((s) => COLORS[s] ?? '#333333') }
}

/** Renders a vega-lite spec to an SVG string, in Node, without a browser. */
export async function renderSvg(spec: vegaLite.TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' })
  try {
    return await view.toSVG()
  } finally {
    view.finalize()
  }
}

/**
 * Flush time against tables touched: one panel per `facet` value (latency, or rows per table), one
 * line per series, and the RTT of `select 1` as a grey line.
 */
export function flushVsTablesSpec(
  rows: readonly ResultRow[],
  report: BenchReport,
  facet: 'latencyMs' | 'rowsPerTable',
  title: string,
): vegaLite.TopLevelSpec {
  const ok = rows.filter((r) => r.status === 'ok' && r.medianMs !== null)
  const points = ok.map((r) => ({
    panel:
      facet === 'latencyMs'
        ? `${r.latencyMs} ms`
        : `${r.rowsPerTable} ${r.rowsPerTable === 1 ? 'row' : 'rows'}/table`,
    order: facet === 'latencyMs' ? r.latencyMs : r.rowsPerTable,
    tables: r.tables,
    ms: r.medianMs,
    series: rowId(r),
  }))
  const panels = [...new Map(points.map((p) => [p.panel, p.order])).entries()]
  for (const [panel, order] of panels) {
    const latency = facet === 'latencyMs' ? order : (ok[0]?.latencyMs ?? 0)
    const rtt = report.rtt.find((r) => r.latencyMs === latency)?.medianMs
    if (rtt === undefined) continue
    for (const tables of new Set(points.filter((p) => p.panel === panel).map((p) => p.tables)))
      points.push({ panel, order, tables, ms: rtt, series: RTT_SERIES })
  }
  const domain = [...seriesIdsOf(ok), RTT_SERIES]
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, subtitle: subtitle(report, rows) },
    data: { values: points },
    facet: {
      column: {
        field: 'panel',
        type: 'ordinal',
        sort: { field: 'order' },
        title: facet === 'latencyMs' ? 'injected latency' : 'rows per table',
      },
    },
    spec: {
      width: 190,
      height: 220,
      mark: { type: 'line', point: true, strokeWidth: 2 },
      encoding: {
        x: {
          field: 'tables',
          type: 'quantitative',
          title: 'tables touched per flush',
          axis: { values: [1, 5, 10, 15, 20] },
        },
        y: { field: 'ms', type: 'quantitative', title: 'median flush time (ms)' },
        color: { field: 'series', type: 'nominal', scale: colorScale(domain), title: 'series' },
        strokeDash: {
          condition: { test: `datum.series === '${RTT_SERIES}'`, value: [4, 3] },
          value: [1, 0],
        },
        tooltip: [{ field: 'series' }, { field: 'tables' }, { field: 'ms', format: '.2f' }],
      },
    },
    resolve: { scale: { y: 'independent' } },
  }
}

/** Bars of the large flush: one panel per row count, one bar per series. */
export function largeFlushSpec(rows: readonly ResultRow[], report: BenchReport): vegaLite.TopLevelSpec {
  const ok = rows.filter((r) => r.status === 'ok' && r.medianMs !== null)
  const values = ok.map((r) => ({
    panel: `${r.rowsPerTable.toLocaleString('en-US')} rows`,
    order: r.rowsPerTable,
    series: rowId(r),
    ms: r.medianMs,
    label: `${Math.round(r.medianMs ?? 0).toLocaleString('en-US')} ms`,
  }))
  const domain = seriesIdsOf(ok)
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `Large flush into one table at ${ok[0]?.latencyMs ?? '?'} ms: median time`,
      subtitle: subtitle(report, rows),
    },
    data: { values },
    facet: { column: { field: 'panel', type: 'ordinal', sort: { field: 'order' }, title: null } },
    spec: {
      width: 300,
      height: 220,
      layer: [
        {
          mark: { type: 'bar' },
          encoding: {
            x: { field: 'series', type: 'nominal', sort: domain, title: null, axis: { labelAngle: -35 } },
            y: { field: 'ms', type: 'quantitative', title: 'median flush time (ms)' },
            color: { field: 'series', type: 'nominal', scale: colorScale(domain), legend: null },
          },
        },
        {
          mark: { type: 'text', dy: -6, fontSize: 9 },
          encoding: {
            x: { field: 'series', type: 'nominal', sort: domain },
            y: { field: 'ms', type: 'quantitative' },
            text: { field: 'label' },
          },
        },
      ],
    },
    resolve: { scale: { y: 'independent' } },
  }
}

/** Bars of the concurrency run: flushes per second per series. */
export function concurrencySpec(rows: readonly ResultRow[], report: BenchReport): vegaLite.TopLevelSpec {
  const ok = rows.filter((r) => r.status === 'ok' && r.flushesPerSecond !== undefined)
  const values = ok.map((r) => ({
    series: rowId(r),
    fps: r.flushesPerSecond,
    label: String(Math.round(r.flushesPerSecond ?? 0)),
  }))
  const domain = seriesIdsOf(ok)
  const first = ok[0]
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `${first?.workers ?? '?'} concurrent units of work on a pool of ${first?.pool ?? '?'} at ${first?.latencyMs ?? '?'} ms: flushes per second`,
      subtitle: subtitle(report, rows),
    },
    data: { values },
    width: 420,
    height: 220,
    layer: [
      {
        mark: { type: 'bar' },
        encoding: {
          x: { field: 'series', type: 'nominal', sort: domain, title: null, axis: { labelAngle: -35 } },
          y: { field: 'fps', type: 'quantitative', title: 'flushes per second' },
          color: { field: 'series', type: 'nominal', scale: colorScale(domain), legend: null },
        },
      },
      {
        mark: { type: 'text', dy: -6, fontSize: 9 },
        encoding: {
          x: { field: 'series', type: 'nominal', sort: domain },
          y: { field: 'fps', type: 'quantitative' },
          text: { field: 'label' },
        },
      },
    ],
  }
}

/** The machine and versions, plus one line per series missing from the chart and why. */
function subtitle(report: BenchReport, rows: readonly ResultRow[] = []): string[] {
  const m = report.meta
  return [
    `PostgreSQL ${m.postgres}, toxiproxy ${m.toxiproxy} (downstream latency), Node ${m.node}, ${m.cpus} x ${m.cpuModel}, ${m.date.slice(0, 10)}`,
    ...missingLines(rows).map(
      (line) => `not shown: ${line.length > 110 ? `${line.slice(0, 107)}...` : line}`,
    ),
  ]
}

/**
 * Writes the charts of `report` as SVG files into `dir` and returns their file names: flush time vs
 * tables (one panel per latency), vs tables at each rows-per-table, the large flush and concurrency.
 */
export async function writeCharts(report: BenchReport, dir: string): Promise<string[]> {
  const matrix = report.results.filter((r) => r.scenario === 'matrix')
  const written: string[] = []
  const write = async (file: string, spec: vegaLite.TopLevelSpec) => {
    await writeFile(join(dir, file), await renderSvg(spec))
    written.push(file)
  }
  const minRows = Math.min(...matrix.map((r) => r.rowsPerTable))
  const single = matrix.filter((r) => r.rowsPerTable === minRows)
  if (single.length > 0)
    await write(
      'flush-vs-tables.svg',
      flushVsTablesSpec(
        single,
        report,
        'latencyMs',
        `Flush time vs tables touched (${minRows} row per table), one panel per latency`,
      ),
    )
  const rowCounts = new Set(matrix.map((r) => r.rowsPerTable))
  if (rowCounts.size > 1) {
    const latencies = [...new Set(matrix.filter((r) => r.rowsPerTable !== minRows).map((r) => r.latencyMs))]
    for (const latency of latencies)
      await write(
        `flush-vs-tables-by-rows-${latency}ms.svg`,
        flushVsTablesSpec(
          matrix.filter((r) => r.latencyMs === latency),
          report,
          'rowsPerTable',
          `Flush time vs tables touched at ${latency} ms, one panel per rows per table`,
        ),
      )
  }
  const large = report.results.filter((r) => r.scenario === 'large')
  if (large.some((r) => r.status === 'ok')) await write('large-flush.svg', largeFlushSpec(large, report))
  const concurrency = report.results.filter((r) => r.scenario === 'concurrency')
  if (concurrency.some((r) => r.status === 'ok'))
    await write('concurrency.svg', concurrencySpec(concurrency, report))
  return written
}
