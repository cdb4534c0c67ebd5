import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { MAX_TABLES } from './workload.ts'

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
  /** `select 1` samples per latency for the RTT. */
  readonly rttSamples: number
  readonly charts: boolean
  /** Turn Nagle's algorithm off on postgres.js sockets (postgres.js leaves it on). */
  readonly tcpNoDelay: boolean
  readonly help: boolean
}

const DEFAULTS: Omit<BenchOptions, 'quick' | 'help' | 'series'> = {
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
  largeSamples: 3,
  concurrency: 50,
  pool: 10,
  concurrencyLatency: 2,
  concurrencyTimeMs: 1_500,
  concurrencyTables: 10,
  rttSamples: 20,
  charts: true,
  tcpNoDelay: true,
  stepTimeoutMs: 180_000,
}

/** What `--quick` changes: a reduced matrix that runs in about a minute. */
const QUICK: Partial<BenchOptions> = {
  latencies: [0, 2],
  rows: [1],
  samples: 5,
  timeMs: 100,
  warmup: 1,
  large: [10_000],
  largeSamples: 2,
  concurrencyTimeMs: 1_000,
  rttSamples: 10,
}

export const USAGE = `npm run bench -- [options]

Runs every series on the same tables through toxiproxy and writes latest.json, a timestamped copy,
summary.md and SVG charts. Starts its own PostgreSQL and toxiproxy unless DATABASE_URL /
TOXIPROXY_URL are set.

  --quick                    reduced matrix (about a minute)
  --latency 0,1,2,5,20       injected downstream latencies, ms
  --tables 1,5,10,20         tables touched per flush (1..${MAX_TABLES})
  --rows 1,10,100            rows per table; the smallest at every latency, the others at --rows-at
  --rows-at 2                latencies at which the other row counts run
  --full                     every row count at every latency (slow)
  --series a,b               only these series (raw-sequential, raw-string-array, raw-promise-all,
                             pipeflush-off, pipeflush-waves, pipeflush-burst, mikroorm, pg-pipeline, copy)
  --out bench/results        output folder (default: the results folder next to src/)
  --samples 10               minimum timed flushes per measurement
  --time 250                 time budget per measurement, ms
  --warmup 2                 untimed warm-up flushes (after the cold one)
  --large 10000,100000       rows of the large flush into one table; 0 or none skips it
  --large-latency 2          latency of the large flush
  --large-samples 3          timed large flushes per series
  --concurrency 50           concurrent units of work; 0 skips the concurrency run
  --pool 10                  connections of the concurrency run
  --concurrency-latency 2    latency of the concurrency run
  --concurrency-time 1500    timed duration of the concurrency run per series, ms
  --concurrency-tables 10    tables per unit of work in the concurrency run
  --rtt-samples 20           select 1 samples per latency
  --nagle                    leave Nagle's algorithm on for postgres.js sockets (its default); by default
                             the bench sets TCP_NODELAY, as pipeflush recommends (noDelay()) and node-postgres does
  --no-charts                skip the SVG charts
  -h, --help`

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
  return {
    quick: values.quick,
    help: values.help,
    latencies: sortedUnique(latencies),
    tables: sortedUnique(tables),
    rows: sortedUnique(list(values.rows, 'rows', 1) ?? base.rows),
    rowsAt: values.full ? latencies : (list(values['rows-at'], 'rows-at', 0) ?? base.rowsAt),
    series: values.series?.split(',').map((s) => s.trim()),
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
