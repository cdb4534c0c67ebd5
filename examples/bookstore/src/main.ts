// npm run example:bookstore -- --latency 2 [--driver pg|postgres.js] [--modes burst,off] [--cold] [--pool 1] [--runs 5] [--trace]
// Starts PostgreSQL and toxiproxy (or uses DATABASE_URL / TOXIPROXY_URL), serves the bookstore API
// on 127.0.0.1, sends it the scripted requests --runs times per pipeline mode, prints what each did in
// the first of them, then the requests side by side: per request, the median of the runs (one run
// is one sample of the clock: a pause of the collector or a busy core moves it by a tenth of an RTT),
// stops.
// The application's pool is a pg.Pool with pipeline: true (or a postgres.js client with --driver
// postgres.js), its Kysely instance is made on that pool, and pipeflush gets both: one pool. Each mode
// gets its own pool; unless --cold, the script runs once unprinted first, so the printed run shows a
// warm server. The pool has one connection by default, so each request's round trips can be counted
// exactly at the socket (the script sends one request at a time); every flush report is checked
// against that count.
import { appKysely, FlushMeter, parseExampleArgs, startExampleDatabase } from '@pipeflush/example-support'
import { createEntityManagerFactory } from '@pipeflush/kysely'
import { startServer } from './api/server.ts'
import { outboxHooks } from './outbox.ts'
import { formatComparison, formatStep, type MeteredStep, measureRtt } from './print.ts'
import { createSchema, type DB, resetData } from './schema.ts'
import { runScript } from './script.ts'
import { formatTraces, startTracing } from './tracing.ts'

const { latencyMs, modes, cold, driver, values, flags } = parseExampleArgs(process.argv.slice(2), {
  pool: { type: 'string', default: '1' },
  runs: { type: 'string', default: '5' },
  trace: { type: 'boolean', default: false },
})
// --cold: the table shows the one cold run (a median of later runs would be of warm ones).
const runs = cold ? 1 : Number(values['runs'])
if (!Number.isInteger(runs) || runs < 1)
  throw new Error(`--runs must be a whole number of at least 1, not ${values['runs']}`)
// --trace: OpenTelemetry set up as an application does; each request's spans printed as a tree.
const tracing = flags['trace'] ? startTracing() : undefined
const pool = Number(values['pool'])
const db = await startExampleDatabase({ name: 'bookstore', latencyMs, driver })
let mismatches = 0
try {
  console.log(db.description)
  const admin = db.connect(1) // stands for the migration tool: creates and empties the tables
  await createSchema(admin.query)
  const byMode = new Map<string, MeteredStep[][]>()
  for (const mode of modes) {
    const app = db.connect(pool)
    const factory = await createEntityManagerFactory<DB>({
      client: app.client,
      db: appKysely<DB>(app),
      pipeline: mode,
      hooks: outboxHooks,
    })
    const meter = new FlushMeter(factory, app.counter)
    const server = await startServer(meter)
    console.log(
      `\n=== pipeline ${mode}, ${cold ? 'cold' : 'warm'} ${driver} pool of ${pool}: bookstore API at ${server.url} ===`,
    )
    try {
      if (!cold) {
        await resetData(admin.query)
        await runScript(server.url)
      }
      const measured: MeteredStep[][] = []
      for (let run = 0; run < runs; run++) {
        await resetData(admin.query)
        tracing?.reset()
        const steps = await runScript(server.url, app.counter)
        const results = steps.map((s) => ({ ...s, metered: meter.of(s.flush) }))
        if (run === 0) {
          for (const step of results) console.log(formatStep(step))
          if (tracing) for (const line of formatTraces(tracing.spans())) console.log(line)
        }
        measured.push(results)
      }
      console.log(meter.summary())
      mismatches += meter.mismatches.length
      byMode.set(mode, measured)
    } finally {
      await server.close()
    }
  }
  // What "2 round trips" is worth by the clock here: a request's time in RTTs is read against it.
  const rttMs = await measureRtt(admin.query)
  console.log(
    `\n=== the same requests, side by side (${driver}, ${latencyMs} ms latency${cold ? ', cold pools' : `, median of ${runs} run${runs === 1 ? '' : 's'}`}; select 1 RTT ${rttMs.toFixed(1)} ms) ===`,
  )
  console.log(formatComparison(byMode, rttMs))
} finally {
  await db.stop()
}
if (mismatches > 0) {
  console.error(`\n!!! ${mismatches} flush report(s) differed from the socket count !!!`)
  process.exitCode = 1
}
