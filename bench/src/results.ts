import type { ConduitRequest } from './conduit/conduit-requests.ts'
import { bySeries, type DriverName, type Scenario, type SeriesName, seriesId } from './series/types.ts'
import { round } from './stats.ts'

/** The part of a run a row belongs to (`conduit`: the request scenario's Conduit cell). */
export type RowScenario = Scenario | 'realistic' | 'request' | 'conduit'

/** One measured (or not measurable) cell. Field names up to `roundTrips` are the results file's stable format. */
export interface ResultRow {
  readonly series: SeriesName
  /** The driver the series ran on (pipeflush and the same-statement series run on both). */
  readonly driver: DriverName
  readonly latencyMs: number
  readonly tables: number
  readonly rowsPerTable: number
  readonly medianMs: number | null
  readonly p95Ms: number | null
  /** Timed flushes (for the concurrency run: flushes completed in the timed window). */
  readonly samples: number
  /** Median `select 1` at this latency, measured in the same run. */
  readonly rttMs: number | null
  /** Round trips per flush counted at the socket (mean over the timed flushes). */
  readonly roundTrips: number | null
  readonly scenario: RowScenario
  /** `ok`, or why there is no number: the series cannot run here, or failed. */
  readonly status: 'ok' | 'unavailable' | 'failed'
  readonly reason?: string
  /** This median / raw-sequential's median in the same cell (0.1 = ten times faster). */
  readonly ratioVsRawSequential: number | null
  /** raw-sequential's median / this median (10 = ten times faster). */
  readonly speedupVsRawSequential: number | null
  /** This median / the RTT (1.0 = one round trip's time). */
  readonly ratioVsRtt: number | null
  readonly p99Ms?: number | null
  readonly meanMs: number | null
  readonly minMs: number | null
  readonly maxMs: number | null
  readonly roundTripsMin?: number | null
  readonly roundTripsMax?: number | null
  /** Client CPU per timed flush, ms (`process.cpuUsage`, user + system, this process). */
  readonly cpuMs?: number | null
  /** cpu scenario: median and p95 of the client CPU of each timed flush, ms (`process.cpuUsage` around it). */
  readonly cpuP50Ms?: number | null
  readonly cpuP95Ms?: number | null
  /** cpu scenario, the traced series: spans their tracer provider recorded per timed flush. */
  readonly spansPerFlush?: number | null
  /** CPU of the server backend per timed flush, ms (/proc/<pid>/stat), where it can be read. */
  readonly serverCpuMs?: number | null
  /** cpu scenario: this client CPU / the raw driver's sending the same statements pipelined (same driver). */
  readonly cpuVsRawPipeline?: number | null
  /** cpu scenario: this client CPU / the raw driver's sending them as one simple-protocol message. */
  readonly cpuVsRawSimple?: number | null
  /** cpu scenario: the same two ratios of the p50s (client CPU around each flush). */
  readonly cpuP50VsRawPipeline?: number | null
  readonly cpuP50VsRawSimple?: number | null
  /**
   * cpu scenario: the shop cell (`graph`, `update`, `delete`, `mix`, `load`), or `first` (the
   * first-flush cell); absent for the plain-insert cells.
   */
  readonly cpuCell?: string
  /**
   * cpu scenario, the first-flush cell: the median client CPU of the same flushes repeated, ms (the
   * first flush of each new shape is `cpuP50Ms`; `samples`, the shapes).
   */
  readonly cpuRepeatedP50Ms?: number | null
  /** What the library reported (pipeflush's `report.roundTrips`, mean). */
  readonly reportedRoundTrips?: number | null
  /** Flushes whose report differs from the socket count (must be 0). */
  readonly reportMismatches?: number | null
  /** Timed flushes that fetched an id block first (+1 round trip each; pipeflush's `report.idFetch`). */
  readonly idFetches?: number | null
  /** First flush on a fresh connection (statements not prepared yet). */
  readonly coldMs?: number | null
  readonly coldRoundTrips?: number | null
  readonly coldReportedRoundTrips?: number | null
  /** Concurrency run only. */
  readonly flushesPerSecond?: number
  readonly workers?: number
  readonly pool?: number
  readonly durationMs?: number
  /** Realistic workload only: units flushed at the same time (1: in sequence), and the cold pools. */
  readonly concurrency?: number
  readonly runs?: number
  /** Realistic: flush wall time in RTTs (p50, p95, p99) and the first round of each run's median. */
  readonly p50Rtt?: number | null
  readonly p95Rtt?: number | null
  readonly p99Rtt?: number | null
  readonly firstRoundMedianRtt?: number | null
  /** Realistic: round trips per flush at the socket, p50 / p95. */
  readonly roundTripsP50?: number | null
  readonly roundTripsP95?: number | null
  /** Realistic: rounds whose reports' sum differs from the sockets'. */
  readonly mismatchedRounds?: number | null
  /**
   * Realistic: round trips of connections the pool opened while flushes ran that no report checks (opened
   * for a reservation that another connection served first; no flush waited for them).
   */
  readonly unclaimedOpenings?: number | null
  /** Realistic: the flushes whose report says one round trip (no id fetch, no connection opened), and their p50 / p95 in RTTs. */
  readonly oneTripFlushes?: number | null
  readonly oneTripP50Rtt?: number | null
  readonly oneTripP95Rtt?: number | null
  /** Realistic: flushes that opened a connection (report.connected), and their round trips doing so. */
  readonly connectedFlushes?: number | null
  readonly connectRoundTrips?: number | null
  /** Request: how the library was used when there are several ways (MikroORM's populate strategy). */
  readonly variant?: string
  /** Request: round trips at the socket of the load and of the flush, medians (`roundTrips` is the request's mean). */
  readonly loadRoundTrips?: number | null
  readonly flushRoundTrips?: number | null
  /** Request: the load's median wall time, ms. */
  readonly loadMedianMs?: number | null
  /** Conduit cell: which of its requests (`feed`, `article`, `create`, `favorite`). */
  readonly conduitRequest?: ConduitRequest
  /** Conduit cell: round trips the request should take (1 for a read, 2 for a write). */
  readonly targetRoundTrips?: number
  /** Conduit cell: round trips at the socket of opening connections during the timed requests (0 on a warm pool). */
  readonly openingRoundTrips?: number | null
}

/** The measured RTT at one latency. */
export interface RttRow {
  readonly latencyMs: number
  readonly medianMs: number
  readonly p95Ms: number
  readonly samples: number
  readonly roundTrips: number
}

/** The content of latest.json. */
export interface BenchReport {
  readonly meta: BenchMeta
  readonly rtt: readonly RttRow[]
  readonly results: readonly ResultRow[]
}

export interface BenchMeta {
  readonly date: string
  readonly machine: string
  readonly cpus: number
  readonly cpuModel: string
  readonly memoryGb: number
  readonly os: string
  readonly node: string
  readonly postgres: string
  readonly postgresProvider: string
  readonly toxiproxy: string
  readonly toxiproxyProvider: string
  readonly postgresJs: string
  readonly nodePostgres: string
  readonly mikroOrm: string
  readonly tinybench: string
  readonly commit: string | null
  readonly wallTimeSeconds: number
  readonly options: Readonly<Record<string, unknown>>
  /** Series that could not run, and why. */
  readonly unavailable: Readonly<Record<string, string>>
  /** How the server backends' CPU was read, or why not. */
  readonly serverCpu?: string
  readonly notes: readonly string[]
}

/** The same cell of another series: same scenario, latency, tables, rows (and concurrency). */
export function sameCell(a: ResultRow, b: ResultRow): boolean {
  return (
    a.scenario === b.scenario &&
    a.latencyMs === b.latencyMs &&
    a.tables === b.tables &&
    a.rowsPerTable === b.rowsPerTable &&
    a.concurrency === b.concurrency &&
    a.cpuCell === b.cpuCell &&
    a.variant === b.variant &&
    a.conduitRequest === b.conduitRequest
  )
}

/** `row`'s client CPU (mean, or `p50`) over that of `series` on the same driver in the same cell, or null. */
function cpuRatio(
  rows: readonly ResultRow[],
  row: ResultRow,
  series: SeriesName,
  field: 'cpuMs' | 'cpuP50Ms' = 'cpuMs',
): number | null {
  const value = row[field]
  if (row.scenario !== 'cpu' || !value) return null
  const base = rows.find((r) => r.series === series && r.driver === row.driver && sameCell(r, row))?.[field]
  return base ? round(value / base, 2) : null
}

/**
 * Fills the ratio fields of every row: against raw-sequential's median in the same cell, against the
 * RTT at the row's latency, and (cpu rows) client CPU against the raw driver sending the same
 * statements. Concurrency rows get the ratios of their per-flush median.
 */
export function withRatios(rows: readonly ResultRow[]): ResultRow[] {
  return rows.map((row) => {
    if (row.medianMs === null) return row
    const base = rows.find((r) => r.series === 'raw-sequential' && sameCell(r, row))?.medianMs ?? null
    return {
      ...row,
      ratioVsRawSequential: base ? round(row.medianMs / base, 3) : null,
      speedupVsRawSequential: base ? round(base / row.medianMs, 2) : null,
      ratioVsRtt: row.rttMs ? round(row.medianMs / row.rttMs, 2) : null,
      ...(row.scenario === 'cpu'
        ? {
            cpuVsRawPipeline: cpuRatio(rows, row, 'raw-pipeline'),
            cpuVsRawSimple: cpuRatio(rows, row, 'raw-simple'),
            cpuP50VsRawPipeline: cpuRatio(rows, row, 'raw-pipeline', 'cpuP50Ms'),
            cpuP50VsRawSimple: cpuRatio(rows, row, 'raw-simple', 'cpuP50Ms'),
          }
        : {}),
    }
  })
}

/**
 * The id (label) of a row's series: its name, with the driver for series that run on both.
 *
 * @example
 * rowId({ series: 'pipeflush-burst', driver: 'pg' }) // 'pipeflush-burst (pg)'
 */
export function rowId(row: Pick<ResultRow, 'series' | 'driver' | 'variant'>): string {
  const id = seriesId(row.series, row.driver)
  return row.variant ? `${id} (${row.variant})` : id
}

/**
 * The distinct series ids of `rows`, in the order series are shown.
 *
 * @example
 * seriesIdsOf(rows) // ['raw-sequential', 'pipeflush-burst (postgres.js)', 'pipeflush-burst (pg)']
 */
export function seriesIdsOf(rows: readonly Pick<ResultRow, 'series' | 'driver'>[]): string[] {
  const seen = new Map<string, Pick<ResultRow, 'series' | 'driver'>>()
  for (const r of rows) if (!seen.has(rowId(r))) seen.set(rowId(r), r)
  return [...seen.values()].sort(bySeries).map(rowId)
}
