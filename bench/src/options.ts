import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { MAX_CONDUIT_ROUNDS } from './conduit/conduit-requests.ts'
import { DRIVERS, type DriverName } from './series/types.ts'
import { MAX_TABLES } from './workload.ts'

/**
 * The CPU scenario's cells: plain inserts (tables x rows), the shop cells (see `series/shop-cells.ts`:
 * four flushes and a read batch, `load`) and `first`, the first flush of new statement shapes against
 * the same flushes repeated (see `measure/first-flush.ts`).
 */
export const CPU_CELLS: readonly string[] = [
  '10x1',
  '5x10',
  'graph',
  'update',
  'delete',
  'mix',
  'load',
  'first',
]

/** The cells of the request scenario: the shop's read-modify-write request, the four Conduit requests. */
export const REQUEST_CELLS = ['shop', 'conduit'] as const
export type RequestCell = (typeof REQUEST_CELLS)[number]

/** The parts of a run `--scenario` can select (a step's `scenario`). */
export const STEP_SCENARIOS = ['matrix', 'large', 'concurrency', 'cpu', 'realistic', 'request'] as const
export type StepScenario = (typeof STEP_SCENARIOS)[number]

/** Everything the benchmark can be told from the command line. */
export interface BenchOptions {
  readonly quick: boolean
  /** Injected downstream latencies, ms. */
  readonly latencies: readonly number[]
  /** Tables touched per flush. */
  readonly tables: readonly number[]
  /** Rows per table. The smallest is measured at every latency, the others at `rowsAt` latencies. */
  readonly rows: readonly number[]
  readonly rowsAt: readonly number[]
  /** Series to run (all when undefined). */
  readonly series: readonly string[] | undefined
  /** Drivers the series on both drivers run on. */
  readonly drivers: readonly DriverName[]
  /** Output folder (absolute, or relative to the working directory). */
  readonly out: string
  /** A measurement still running after this many ms is abandoned and reported as failed. */
  readonly stepTimeoutMs: number
  /** Minimum timed samples per measurement. */
  readonly samples: number
  /** Time budget per measurement, ms (sampling goes on until both this and `samples` are reached). */
  readonly timeMs: number
  /** Untimed warm-up flushes after the cold one. */
  readonly warmup: number
  /** Rows of the large flush into one table (empty: skipped). */
  readonly large: readonly number[]
  readonly largeLatency: number
  readonly largeSamples: number
  /** Concurrent units of work of the concurrency run (0: skipped). */
  readonly concurrency: number
  readonly pool: number
  readonly concurrencyLatency: number
  readonly concurrencyTimeMs: number
  /** Tables touched by each unit of work of the concurrency run (1 row each). */
  readonly concurrencyTables: number
  /** Latencies of the realistic workload (empty: skipped). */
  readonly realisticLatencies: readonly number[]
  /** Fresh clients per realistic measurement, and units of work each replays. */
  readonly realisticRuns: number
  readonly realisticUnits: number
  readonly realisticPool: number
  readonly realisticSeed: number
  /** Latencies of the request scenario (empty: skipped), timed requests per library, warm-up requests, pool. */
  readonly requestLatencies: readonly number[]
  readonly requestSamples: number
  readonly requestWarmup: number
  readonly requestPool: number
  /** The cells of the request scenario: `shop` (load a graph, change it, flush), `conduit` (four Conduit requests). */
  readonly requestCells: readonly RequestCell[]
  /** Parts of the run to measure (all when undefined). */
  readonly scenarios: readonly StepScenario[] | undefined
  /** Timed flushes per series of the side-by-side CPU measurement (0: skipped). */
  readonly cpuFlushes: number
  /**
   * Untimed flushes per series and cell before the CPU measurement. V8 compiles a flush's functions on
   * a background thread that `process.cpuUsage` counts, for thousands of flushes: the default measures
   * what a long-running server spends (`bench/tools/warmup-curve.ts` shows the curve).
   */
  readonly cpuWarmup: number
  readonly cpuLatency: number
  /** The CPU cells: `10x1`, `5x10` (plain inserts) and the shop cells `graph`, `update`, `delete`, `mix`. */
  readonly cpuCells: readonly string[]
  /** Write a V8 CPU profile of the pipeflush series. */
  readonly profile: boolean
  /** `select 1` samples per latency for the RTT. */
  readonly rttSamples: number
  readonly charts: boolean
  /** Turn Nagle's algorithm off on the raw postgres.js series' sockets (postgres.js leaves it on; pipeflush turns it off). */
  readonly tcpNoDelay: boolean
  readonly help: boolean
}

const DEFAULTS: Omit<BenchOptions, 'quick' | 'help' | 'series' | 'scenarios'> = {
  latencies: [0, 1, 2, 5, 20],
  tables: [1, 5, 10, 20],
  rows: [1, 10, 100],
  rowsAt: [2],
  out: fileURLToPath(new URL('../results/', import.meta.url)),
  samples: 10,
  timeMs: 250,
  warmup: 2,
  large: [10_000, 100_000],
  largeLatency: 2,
  largeSamples: 5,
  concurrency: 50,
  pool: 10,
  concurrencyLatency: 2,
  concurrencyTimeMs: 1_500,
  concurrencyTables: 10,
  realisticLatencies: [2, 20],
  realisticRuns: 3,
  realisticUnits: 40,
  realisticPool: 10,
  realisticSeed: 1,
  requestLatencies: [20],
  requestSamples: 30,
  requestWarmup: 2,
  requestPool: 4,
  requestCells: REQUEST_CELLS,
  cpuFlushes: 1_500,
  cpuWarmup: 3_000,
  cpuLatency: 0,
  cpuCells: CPU_CELLS,
  profile: false,
  rttSamples: 20,
  charts: true,
  drivers: DRIVERS,
  tcpNoDelay: true,
  stepTimeoutMs: 180_000,
}

/** What `--quick` changes: a reduced matrix that runs in under two minutes. */
const QUICK: Partial<BenchOptions> = {
  latencies: [0, 2],
  tables: [1, 10],
  rows: [1],
  samples: 5,
  timeMs: 100,
  warmup: 1,
  large: [10_000],
  largeSamples: 2,
  concurrencyTimeMs: 1_000,
  realisticLatencies: [20],
  realisticRuns: 2,
  realisticUnits: 20,
  requestSamples: 8,
  requestWarmup: 1,
  cpuFlushes: 300,
  cpuWarmup: 15,
  rttSamples: 10,
}

/** Parses `argv` (without node and script). Throws an Error with a readable message on bad input. */
export function parseOptions(argv: readonly string[]): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      quick: { type: 'boolean', default: false },
      full: { type: 'boolean', default: false },
      latency: { type: 'string' },
      tables: { type: 'string' },
      rows: { type: 'string' },
      'rows-at': { type: 'string' },
      series: { type: 'string' },
      out: { type: 'string' },
      samples: { type: 'string' },
      time: { type: 'string' },
      warmup: { type: 'string' },
      large: { type: 'string' },
      'large-latency': { type: 'string' },
      'large-samples': { type: 'string' },
      concurrency: { type: 'string' },
      pool: { type: 'string' },
      'concurrency-latency': { type: 'string' },
      'concurrency-time': { type: 'string' },
      'concurrency-tables': { type: 'string' },
      drivers: { type: 'string' },
      'realistic-latency': { type: 'string' },
      'realistic-runs': { type: 'string' },
      'realistic-units': { type: 'string' },
      'realistic-pool': { type: 'string' },
      'realistic-seed': { type: 'string' },
      'request-latency': { type: 'string' },
      'request-samples': { type: 'string' },
      'request-warmup': { type: 'string' },
      'request-pool': { type: 'string' },
      'request-cells': { type: 'string' },
      scenario: { type: 'string' },
      request: { type: 'boolean', default: false },
      'cpu-flushes': { type: 'string' },
      'cpu-warmup': { type: 'string' },
      'cpu-latency': { type: 'string' },
      'cpu-cells': { type: 'string' },
      profile: { type: 'boolean', default: false },
      'rtt-samples': { type: 'string' },
      'no-charts': { type: 'boolean', default: false },
      nagle: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  const base = { ...DEFAULTS, ...(values.quick ? QUICK : {}) }
  const latencies = list(values.latency, 'latency', 0) ?? base.latencies
  const tables = list(values.tables, 'tables', 1) ?? base.tables
  const badTables = tables.filter((t) => !Number.isInteger(t) || t > MAX_TABLES)
  if (badTables.length > 0) throw new Error(`--tables: each must be an integer in 1..${MAX_TABLES}`)
  const concurrencyTables =
    int(values['concurrency-tables'], 'concurrency-tables', 1) ?? base.concurrencyTables
  if (concurrencyTables > MAX_TABLES) throw new Error(`--concurrency-tables: at most ${MAX_TABLES}`)
  const large = values.large === 'none' ? [] : (list(values.large, 'large', 0) ?? base.large)
  const realistic =
    values['realistic-latency'] === 'none'
      ? []
      : (list(values['realistic-latency'], 'realistic-latency', 0) ?? base.realisticLatencies)
  const request =
    values['request-latency'] === 'none'
      ? []
      : (list(values['request-latency'], 'request-latency', 0) ?? base.requestLatencies)
  const scenarioNames = [
    ...(values.scenario?.split(',').map((s) => s.trim()) ?? []),
    ...(values.request ? ['request'] : []),
  ]
  const badScenarios = scenarioNames.filter((s) => !STEP_SCENARIOS.includes(s as StepScenario))
  if (badScenarios.length > 0)
    throw new Error(
      `--scenario: expected some of ${STEP_SCENARIOS.join(', ')}, got "${badScenarios.join(',')}"`,
    )
  const cpuCells = values['cpu-cells']?.split(',').map((c) => c.trim()) ?? base.cpuCells
  const badCells = cpuCells.filter((c) => !CPU_CELLS.includes(c))
  if (badCells.length > 0 || cpuCells.length === 0)
    throw new Error(`--cpu-cells: expected some of ${CPU_CELLS.join(', ')}, got "${values['cpu-cells']}"`)
  const requestCells = values['request-cells']?.split(',').map((c) => c.trim()) ?? base.requestCells
  const badRequestCells = requestCells.filter((c) => !REQUEST_CELLS.includes(c as RequestCell))
  if (badRequestCells.length > 0 || requestCells.length === 0)
    throw new Error(
      `--request-cells: expected some of ${REQUEST_CELLS.join(', ')}, got "${values['request-cells']}"`,
    )
  const drivers = values.drivers?.split(',').map((d) => d.trim()) ?? base.drivers
  const badDrivers = drivers.filter((d) => !DRIVERS.includes(d as DriverName))
  if (badDrivers.length > 0 || drivers.length === 0)
    throw new Error(`--drivers: expected some of ${DRIVERS.join(', ')}, got "${values.drivers}"`)
  const requestSamples = int(values['request-samples'], 'request-samples', 1) ?? base.requestSamples
  const requestWarmup = int(values['request-warmup'], 'request-warmup', 0) ?? base.requestWarmup
  if (requestCells.includes('conduit') && requestSamples + requestWarmup > MAX_CONDUIT_ROUNDS)
    throw new Error(
      `--request-samples + --request-warmup: at most ${MAX_CONDUIT_ROUNDS} with the conduit cell (each round favorites an article not favorited before)`,
    )
  return {
    quick: values.quick,
    help: values.help,
    latencies: sortedUnique(latencies),
    tables: sortedUnique(tables),
    rows: sortedUnique(list(values.rows, 'rows', 1) ?? base.rows),
    rowsAt: values.full ? latencies : (list(values['rows-at'], 'rows-at', 0) ?? base.rowsAt),
    series: values.series?.split(',').map((s) => s.trim()),
    drivers: DRIVERS.filter((d) => drivers.includes(d)),
    out: values.out ?? base.out,
    stepTimeoutMs: base.stepTimeoutMs,
    samples: int(values.samples, 'samples', 1) ?? base.samples,
    timeMs: int(values.time, 'time', 0) ?? base.timeMs,
    warmup: int(values.warmup, 'warmup', 0) ?? base.warmup,
    large: sortedUnique(large.filter((n) => n > 0)),
    largeLatency: int(values['large-latency'], 'large-latency', 0) ?? base.largeLatency,
    largeSamples: int(values['large-samples'], 'large-samples', 1) ?? base.largeSamples,
    concurrency: int(values.concurrency, 'concurrency', 0) ?? base.concurrency,
    pool: int(values.pool, 'pool', 1) ?? base.pool,
    concurrencyLatency:
      int(values['concurrency-latency'], 'concurrency-latency', 0) ?? base.concurrencyLatency,
    concurrencyTimeMs: int(values['concurrency-time'], 'concurrency-time', 1) ?? base.concurrencyTimeMs,
    concurrencyTables,
    realisticLatencies: sortedUnique(realistic),
    realisticRuns: int(values['realistic-runs'], 'realistic-runs', 1) ?? base.realisticRuns,
    realisticUnits: int(values['realistic-units'], 'realistic-units', 1) ?? base.realisticUnits,
    realisticPool: int(values['realistic-pool'], 'realistic-pool', 4) ?? base.realisticPool,
    realisticSeed: int(values['realistic-seed'], 'realistic-seed', 0) ?? base.realisticSeed,
    requestLatencies: sortedUnique(request),
    requestSamples,
    requestWarmup,
    requestPool: int(values['request-pool'], 'request-pool', 1) ?? base.requestPool,
    requestCells: REQUEST_CELLS.filter((c) => requestCells.includes(c)),
    scenarios: scenarioNames.length > 0 ? STEP_SCENARIOS.filter((s) => scenarioNames.includes(s)) : undefined,
    cpuFlushes: int(values['cpu-flushes'], 'cpu-flushes', 0) ?? base.cpuFlushes,
    cpuWarmup: int(values['cpu-warmup'], 'cpu-warmup', 0) ?? base.cpuWarmup,
    cpuLatency: int(values['cpu-latency'], 'cpu-latency', 0) ?? base.cpuLatency,
    cpuCells,
    profile: values.profile,
    rttSamples: int(values['rtt-samples'], 'rtt-samples', 1) ?? base.rttSamples,
    charts: !values['no-charts'],
    tcpNoDelay: !values['nagle'],
  }
}

function list(value: string | undefined, name: string, min: number): number[] | undefined {
  if (value === undefined) return undefined
  const out = value.split(',').map((s) => Number(s.trim()))
  if (out.length === 0 || out.some((n) => !Number.isFinite(n) || n < min))
    throw new Error(`--${name}: expected comma-separated numbers >= ${min}, got "${value}"`)
  return out
}

function int(value: string | undefined, name: string, min: number): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < min)
    throw new Error(`--${name}: expected an integer >= ${min}, got "${value}"`)
  return n
}

function sortedUnique(values: readonly number[]): number[] {
  return [...new Set(values)].sort((a, b) => a - b)
}
