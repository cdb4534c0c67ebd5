import type { Scenario, SeriesName } from './series/types.ts'
import { round } from './stats.ts'

/** One measured (or not measurable) cell. Field names up to `roundTrips` are fixed by issue 5. */
export interface ResultRow {
  readonly series: SeriesName
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
  readonly scenario: Scenario
  /** `ok`, or why there is no number: the series cannot run here, or failed. */
  readonly status: 'ok' | 'unavailable' | 'failed'
  readonly reason?: string
  /** This median / raw-sequential's median in the same cell (0.1 = ten times faster). */
  readonly ratioVsRawSequential: number | null
  /** raw-sequential's median / this median (10 = ten times faster). */
  readonly speedupVsRawSequential: number | null
  /** This median / the RTT (1.0 = one round trip's time). */
  readonly ratioVsRtt: number | null
  readonly meanMs: number | null
  readonly minMs: number | null
  readonly maxMs: number | null
  readonly roundTripsMin?: number | null
  readonly roundTripsMax?: number | null
  /** What the library reported (pipeflush's `report.roundTrips`, mean). */
  readonly reportedRoundTrips?: number | null
  /** Timed flushes that fetched an id block first (+1 round trip each; pipeflush's `report.idFetch`). */
  readonly idFetches?: number | null
  /** First flush on a fresh connection (statements not prepared yet). */
  readonly coldMs?: number | null
  readonly coldRoundTrips?: number | null
  /** Concurrency run only. */
  readonly flushesPerSecond?: number
  readonly workers?: number
  readonly pool?: number
  readonly durationMs?: number
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
  readonly notes: readonly string[]
}

/** The same cell of another series: same scenario, latency, tables and rows. */
export function sameCell(a: ResultRow, b: ResultRow): boolean {
  return (
    a.scenario === b.scenario &&
    a.latencyMs === b.latencyMs &&
    a.tables === b.tables &&
    a.rowsPerTable === b.rowsPerTable
  )
}

/**
 * Fills the ratio fields of every row: against raw-sequential's median in the same cell, and against
 * the RTT at the row's latency. Concurrency rows get the ratios of their per-flush median.
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
    }
  })
}
