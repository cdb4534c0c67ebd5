import { MAX_TABLES } from './workload.ts'

/** The text of `npm run bench -- --help`. */
export const USAGE = `npm run bench -- [options]

Runs every series on the same tables through toxiproxy and writes latest.json, a timestamped copy,
summary.md and SVG charts. Starts its own PostgreSQL and toxiproxy unless DATABASE_URL /
TOXIPROXY_URL are set.

  --quick                    reduced matrix (under two minutes; 8 timed requests per library)
  --latency 0,1,2,5,20       injected downstream latencies, ms
  --tables 1,5,10,20         tables touched per flush (1..${MAX_TABLES})
  --rows 1,10,100            rows per table; the smallest at every latency, the others at --rows-at
  --rows-at 2                latencies at which the other row counts run
  --full                     every row count at every latency (slow)
  --series a,b               only these series (raw-sequential, raw-string-array, raw-promise-all,
                             pipeflush-off, pipeflush-waves, pipeflush-burst, pipeflush-burst-traced,
                             pipeflush-burst-tracing-false, pipeflush-drizzle, mikroorm, drizzle,
                             pg-pipeline, raw-pg, raw-pipeline, raw-simple, copy; pipeflush-drizzle and
                             drizzle run in the realistic workload only)
  --drivers postgres.js,pg   drivers of the series that run on both (pipeflush-*, drizzle, raw-pipeline, raw-simple)
  --out bench/results        output folder (default: the results folder next to src/)
  --samples 10               minimum timed flushes per measurement
  --time 250                 time budget per measurement, ms
  --warmup 2                 untimed warm-up flushes (after the cold one)
  --large 10000,100000       rows of the large flush into one table; 0 or none skips it
  --large-latency 2          latency of the large flush
  --large-samples 5          timed large flushes per series
  --concurrency 50           concurrent units of work; 0 skips the concurrency run
  --pool 10                  connections of the concurrency run
  --concurrency-latency 2    latency of the concurrency run
  --concurrency-time 1500    timed duration of the concurrency run per series, ms
  --concurrency-tables 10    tables per unit of work in the concurrency run
  --realistic-latency 2,20   latencies of the realistic workload (mixed units of work, cold pool); none skips
  --realistic-runs 3         fresh clients (cold pools) per realistic measurement
  --realistic-units 40       units of work each of them replays (in sequence, then four at a time)
  --realistic-pool 10        connections of each realistic client
  --realistic-seed 1         seed of the generated units of work (run r uses seed + r)
  --request-latency 20       latencies of the request scenario (its cells below); none skips
  --request-cells shop,conduit  the request scenario's cells: shop (load a customer's graph, change it,
                             flush), conduit (four Conduit requests: feed, article page, create article,
                             favorite); default both
  --request-samples 30       timed requests per library (after the warm-up); Conduit: rounds of its four
  --request-warmup 2         untimed requests (Conduit: rounds) first
  --request-pool 4           connections of each library's client in the request scenario
  --scenario a,b             only these parts of the run (matrix, large, concurrency, cpu, realistic, request)
  --request                  only the request scenario (same as --scenario request)
  --cpu-flushes 1500         flushes per series of the side-by-side CPU measurement (pipeflush-burst
                             without a tracer provider, traced, tracing: false; the raw drivers); 0 skips it
  --cpu-latency 0            latency of the CPU measurement
  --cpu-cells a,b            the CPU cells: 10x1, 5x10 (plain inserts), graph, update, delete, mix, load
                             (shop cells, load a read batch: pipeflush-burst, raw-pipeline, raw-simple
                             only), first (a new statement shape's first flush against it repeated:
                             pipeflush-burst only); default all
  --profile                  write a V8 CPU profile of pipeflush-burst per driver (and per shop cell) to the output folder
  --rtt-samples 20           select 1 samples per latency
  --nagle                    leave Nagle's algorithm on for the raw postgres.js series (its default); by
                             default the bench sets TCP_NODELAY there, as node-postgres and pipeflush do
  --no-charts                skip the SVG charts
  -h, --help`
