import { type BenchReport, type ResultRow, rowId } from '../results.ts'
import { readsOnly, SHOP_CELL_LABELS, type ShopCell } from '../series/shop-cells.ts'
import { bySeries, DRIVERS, type SeriesName } from '../series/types.ts'
import { ms, num, ratio, rowsLabel } from './format.ts'
import { missingLines, type View } from './views.ts'

/** Microseconds, whole. */
const us = (v: number | null | undefined) =>
  v === null || v === undefined ? '-' : String(Math.round(v * 1000))

/** `a / b` as a ratio, or `-`. */
const over = (a: number | null | undefined, b: number | null | undefined) => (a && b ? ratio(a / b) : '-')

/**
 * The side-by-side CPU measurement, one table per work shape: client CPU per flush of pipeflush-burst
 * (without a tracer provider, and with a recording one: traced and `tracing: false`) and of the raw
 * driver sending the same statements (pipelined, and as one simple-protocol message), per driver, with
 * ratios; server backend CPU where it was read. Then, per work shape, what tracing costs.
 *
 * @example
 * cpuViews(report)[0]?.title // 'Client CPU per flush, 10 tables x 1 row, side by side at 0 ms (1500 flushes each)'
 */
export function cpuViews(report: BenchReport): View[] {
  const all = report.results.filter((r) => r.scenario === 'cpu')
  const rows = all.filter((r) => r.cpuCell !== FIRST_CELL)
  const shapes = [...new Set(rows.map(shapeKey))]
  const cells = shapes.map((shape) => rows.filter((r) => shapeKey(r) === shape).sort(bySeries))
  const first = all.filter((r) => r.cpuCell === FIRST_CELL).sort(bySeries)
  return [
    ...cells.map(sideBySideView),
    ...(first.length > 0 ? [firstFlushView(first)] : []),
    ...cells.map(tracingView).filter((v): v is View => v !== undefined),
  ]
}

/** The CPU cell of the first flush of new statement shapes (see `measure/first-flush.ts`). */
const FIRST_CELL = 'first'

/** The first-flush cell: per driver, a new shape's first flush against the same flush repeated. */
function firstFlushView(rows: readonly ResultRow[]): View {
  return {
    title: `Client CPU of the first flush of a new statement shape, against the same flush repeated, at ${rows[0]?.latencyMs ?? '?'} ms`,
    headers: ['series', 'shapes', 'first flush p50 µs', 'repeated p50 µs', 'first / repeated'],
    align: ['left', 'right', 'right', 'right', 'right'],
    rows: rows.map((r) =>
      r.status === 'ok'
        ? [
            rowId(r),
            String(r.samples),
            us(r.cpuP50Ms),
            us(r.cpuRepeatedP50Ms),
            over(r.cpuP50Ms, r.cpuRepeatedP50Ms),
          ]
        : [rowId(r), r.status, '', '', ''],
    ),
    note: "One table of 12 nullable int columns: shape n inserts a row writing the columns of n's bits and updates a loaded row's same columns, so every shape is new to the process (its insert and update texts, what they return); the process warmed first on a shape of its own. Per shape, its first flush, then 15 more (their median); before each, untimed, a fresh fork loads the row it updates and makes the changes. Medians over the shapes of process.cpuUsage around each flush, one connection of pipeflush-burst (a root connected with pipeline: 'burst'). Target: first <= 5x repeated (see the targets).",
    missing: missingLines(rows),
  }
}

/** A CPU cell's work shape: tables x rows, or the shop cell. */
const shapeKey = (r: ResultRow) => r.cpuCell ?? `${r.tables}/${r.rowsPerTable}`

function shapeTitle(cell: readonly ResultRow[]): string {
  const first = cell.find((r) => r.status === 'ok') ?? cell[0]
  const shop = first?.cpuCell as ShopCell | undefined
  const what = shop
    ? (SHOP_CELL_LABELS[shop] ?? shop)
    : `${first?.tables ?? '?'} tables x ${rowsLabel(first?.rowsPerTable ?? 0)}`
  const each = shop !== undefined && readsOnly(shop) ? 'read batches' : 'flushes'
  return `${what}, side by side at ${first?.latencyMs ?? '?'} ms (${cell.find((r) => r.status === 'ok')?.samples ?? '?'} ${each} each)`
}

/** Whether the CPU cell of `cell`'s rows is a read batch (the shop `load` cell), not a flush. */
function readCell(cell: readonly ResultRow[]): boolean {
  const shop = cell.find((r) => r.cpuCell !== undefined)?.cpuCell as ShopCell | undefined
  return shop !== undefined && readsOnly(shop)
}

function sideBySideView(cell: readonly ResultRow[]): View {
  const reads = readCell(cell)
  return {
    title: `Client CPU per ${reads ? 'read batch' : 'flush'}, ${shapeTitle(cell)}`,
    headers: [
      'series',
      reads ? 'client CPU µs/read batch' : 'client CPU µs/flush',
      'p50 µs',
      'p95 µs',
      'vs raw-pipeline',
      'vs raw-simple',
      'p50 vs raw-pipeline',
      'p50 vs raw-simple',
      reads ? 'server CPU µs/read batch' : 'server CPU µs/flush',
      'median ms',
      'p95 ms',
      'round trips',
    ],
    align: [
      'left',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
      'right',
    ],
    rows: cell.map((r) =>
      r.status === 'ok'
        ? [
            rowId(r),
            us(r.cpuMs),
            us(r.cpuP50Ms),
            us(r.cpuP95Ms),
            r.series === 'raw-pipeline' ? 'baseline' : ratio(r.cpuVsRawPipeline),
            r.series === 'raw-simple' ? 'baseline' : ratio(r.cpuVsRawSimple),
            r.series === 'raw-pipeline' ? 'baseline' : ratio(r.cpuP50VsRawPipeline),
            r.series === 'raw-simple' ? 'baseline' : ratio(r.cpuP50VsRawSimple),
            us(r.serverCpuMs),
            ms(r.medianMs),
            ms(r.p95Ms),
            num(r.roundTrips),
          ]
        : [rowId(r), r.status, '', '', '', '', '', '', '', '', '', ''],
    ),
    note: reads
      ? READ_NOTE
      : cell.some((r) => r.cpuCell)
        ? SHOP_NOTE
        : 'Each series on its own connection, taking turns in chunks in one process. raw-pipeline / raw-simple send the statements pipeflush sends (its inserts with ids: one-row statements for one row, unnest for several) without pipeflush; ratios are against them on the same driver. pipeflush-burst runs without an OpenTelemetry tracer provider; -traced and -tracing-false with a recording one set globally for their turns (see the tracing table). Client CPU: process.cpuUsage over the timed flushes / their number; p50 and p95 of process.cpuUsage around each flush; server CPU: the backend\'s utime + stime (10 ms ticks), "-" where unreadable.',
    missing: missingLines(cell),
  }
}

const SHOP_NOTE =
  "A shop cell (the realistic mix's schema, units of work of its kinds): each series writes rows of its own, on its own connection, taking turns in chunks in one process. Before each flush, untimed: pipeflush-burst makes the unit in a fresh fork as users do (rows loaded with em.find, new rows with em.create, a new parent given as its entity, loaded rows assigned and removed; connected with versionColumn: 'version'), then em.flush() is timed; raw-pipeline / raw-simple make the same unit in pipeflush on a connection of their own, take em.plan()'s statements and replace its placeholder ids by ids from the tables' sequences, then send exactly those statements (pipelined with BEGIN and COMMIT, or as one simple-protocol message with the parameters as literals). Client CPU: process.cpuUsage around each flush (p50, p95) and over each chunk without the untimed preparation (the mean: it includes garbage collection of what the preparation left). Target: pipeflush-burst p50 <= 1.6x raw-simple (see the targets). Server CPU is not read (the preparation runs on the server too)."

const READ_NOTE =
  "The shop's read batch: each series on its own connection and its own fixture rows, taking turns in chunks in one process. pipeflush-burst: em.load('customer', id, { with: { purchases: { purchase_lines: { product: true } } } }) on a fresh fork (made untimed), the same customer each time: its selects in one round trip, in a read-only REPEATABLE READ transaction (pipelined and named on pg, one simple-protocol message on postgres.js), the rows decoded, tracked as entities and linked. raw-pipeline / raw-simple send the statements pipeflush sent for that load (taken once where node-postgres takes them, BEGIN and COMMIT included): pipelined in one Promise.all (those with parameters prepared), or as one simple-protocol message with the parameters as literals, and the driver decodes the rows. Client CPU: process.cpuUsage around each read batch (p50, p95) and over each chunk. Target: pipeflush-burst p50 <= 1.6x the raw driver sending the same messages: raw-pipeline on pg, raw-simple on postgres.js (see the targets)."

/** The settings of the tracing table: the series and how it is labelled. */
const TRACING: readonly (readonly [SeriesName, string])[] = [
  ['pipeflush-burst', 'no tracer provider'],
  ['pipeflush-burst-tracing-false', 'recording provider, tracing: false'],
  ['pipeflush-burst-traced', 'recording provider'],
]

/**
 * What tracing costs in one CPU cell, per driver: pipeflush-burst without a provider, with a
 * recording provider and `tracing: false`, and traced; client CPU per flush (p50, p95, mean), against
 * the untraced flush and against raw-pipeline. Undefined when no traced series ran.
 */
function tracingView(cell: readonly ResultRow[]): View | undefined {
  if (
    !cell.some((r) => r.series === 'pipeflush-burst-traced' || r.series === 'pipeflush-burst-tracing-false')
  )
    return undefined
  const out: string[][] = []
  for (const driver of DRIVERS) {
    const find = (series: SeriesName) =>
      cell.find((r) => r.series === series && r.driver === driver && r.status === 'ok')
    const untraced = find('pipeflush-burst')
    const raw = find('raw-pipeline')
    for (const [series, label] of TRACING) {
      const r = find(series)
      if (!r) continue
      out.push([
        driver,
        label,
        us(r.cpuP50Ms),
        us(r.cpuP95Ms),
        us(r.cpuMs),
        series === 'pipeflush-burst' ? 'baseline' : over(r.cpuP50Ms, untraced?.cpuP50Ms),
        over(r.cpuP50Ms, raw?.cpuP50Ms),
        ratio(r.cpuVsRawPipeline),
        num(r.spansPerFlush), // '-' without a provider: nothing to record, nothing counted
        num(r.roundTrips),
      ])
    }
  }
  const tracing = cell.filter((r) => TRACING.some(([s]) => s === r.series))
  return {
    title: `Tracing: pipeflush-burst client CPU per flush, ${shapeTitle(cell)}`,
    headers: [
      'driver',
      'OpenTelemetry',
      'p50 µs',
      'p95 µs',
      'mean µs',
      'p50 vs no provider',
      'p50 vs raw-pipeline',
      'mean vs raw-pipeline',
      'spans/flush',
      'round trips',
    ],
    align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
    rows: out,
    note: "The same flushes as the table above (measured side by side with it), connected as users connect (EntityManager.connect, em.flush()). The recording provider is @opentelemetry/sdk-trace's TracerProvider with a SimpleSpanProcessor into an InMemorySpanExporter, and an AsyncLocalStorage context manager, set globally (trace.setGlobalTracerProvider) before each of the series' turns and unset after, so the other series run without one.",
    missing: missingLines(tracing),
  }
}
