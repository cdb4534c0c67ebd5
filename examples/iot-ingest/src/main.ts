// npm run example:iot-ingest -- --latency 2 [--driver pg|postgres.js] [--modes burst,off] [--sizes 100,1000,5000,10000,50000,100000]
// The psql 18 pipeline article's test: device readings upserted with `on conflict (device,
// recorded_at) do update`, in batches of 100 to 100,000, here through pipeflush's unit of work. Each
// batch is ingested twice: new readings (inserts), then the same ones re-measured (updates). The
// application's pool is a pg.Pool with pipeline: true (or a postgres.js client with --driver
// postgres.js) with its Kysely on it; every flush report is checked against the pool's socket counter.
import {
  appKysely,
  describeSocketCheck,
  FlushMeter,
  formatTable,
  parseExampleArgs,
  startExampleDatabase,
} from '@pipeflush/example-support'
import { createEntityManagerFactory, describeFlush } from '@pipeflush/kysely'
import { ingest } from './ingest.ts'
import { makeReadings, remeasure } from './readings.ts'
import { ingestRowByRow } from './row-by-row.ts'
import { createSchema, type DB, resetData } from './schema.ts'

const args = parseExampleArgs(process.argv.slice(2), {
  sizes: { type: 'string', default: '100,1000,5000,10000,50000,100000' },
  'row-by-row-max': { type: 'string', default: '1000' },
})
const sizes = String(args.values['sizes']).split(',').map(Number)
const rowByRowMax = Number(args.values['row-by-row-max'])
const db = await startExampleDatabase({ name: 'iot', latencyMs: args.latencyMs, driver: args.driver })
const rows: (string | number)[][] = []
const meters: FlushMeter<DB>[] = []
try {
  console.log(db.description)
  const admin = db.connect(1) // stands for the migration tool: creates and empties the table
  await createSchema(admin.query)
  const start = new Date('2025-10-01T00:00:00Z')
  // One pool and unit-of-work factory per mode, used in turn for each batch size, so that both modes
  // see the same machine (timings on a busy machine drift).
  const factories = []
  for (const mode of args.modes) {
    const app = db.connect(1)
    const factory = await createEntityManagerFactory<DB>({
      client: app.client,
      db: appKysely<DB>(app),
      pipeline: mode,
      // Ingestion keeps no entity: its upserts return nothing (else every row comes back as stored).
      serverValues: { reading: false },
    })
    const meter = new FlushMeter(factory, app.counter)
    meters.push(meter)
    // Warm-up: prepares the statement on the connection, and lets V8 compile the encoding code.
    await ingest(meter, makeReadings(5000, { seed: 0, start }))
    factories.push({ mode, meter })
  }
  for (const size of sizes) {
    console.log(`\n=== ${size} readings ===`)
    const batch = makeReadings(size, { seed: size, start })
    for (const { mode, meter } of factories) {
      await resetData(admin.query)
      for (const [pass, readings] of [
        ['new', batch],
        ['again', remeasure(batch, 0.5)],
      ] as const) {
        const report = await ingest(meter, readings)
        const [count] = await admin.query<{ n: number }>('select count(*)::int as n from reading')
        const rate = Math.round(size / (report.durationMs / 1000))
        console.log(
          `${pass.padEnd(5)} ${describeFlush(report)}; ${describeSocketCheck(meter.of(report))}; ` +
            `${count?.n} rows stored, ${rate} readings/s`,
        )
        rows.push([
          size,
          pass,
          mode,
          report.upserted,
          report.statements,
          report.roundTrips,
          report.durationMs.toFixed(1),
          rate,
        ])
      }
    }
  }
  const small = sizes.filter((s) => s <= rowByRowMax)
  if (small.length > 0) {
    console.log(
      '\n=== without pipeflush: the prepared upsert row by row, each awaited (the article without pipeline) ===',
    )
    const pool = db.connect(1)
    await pool.query('select 1') // opens the connection, so that only the upserts are counted
    for (const size of small) {
      await resetData(admin.query)
      const readings = makeReadings(size, { seed: size, start })
      const { result, count } = await pool.counter.measure(() => ingestRowByRow(pool, readings))
      const rate = Math.round(size / (result.durationMs / 1000))
      console.log(
        `${String(size).padStart(6)} readings: ${size} statements, ${count.roundTrips} round trips (socket), ` +
          `${result.durationMs.toFixed(1)} ms, ${rate} readings/s`,
      )
      rows.push([size, 'new', 'row by row', size, size, count.roundTrips, result.durationMs.toFixed(1), rate])
    }
  }
  rows.sort((a, b) => Number(a[0]) - Number(b[0]))
  console.log(`\n=== all batches, ${args.driver}, ${args.latencyMs} ms latency ===`)
  console.log(
    formatTable(
      ['readings', 'pass', 'mode', 'upserted', 'statements', 'round trips', 'ms', 'readings/s'],
      rows,
    ),
  )
  for (const meter of meters) console.log(meter.summary())
} finally {
  await db.stop()
}
const mismatches = meters.reduce((n, m) => n + m.mismatches.length, 0)
if (mismatches > 0) {
  console.error(`\n!!! ${mismatches} flush report(s) differed from the socket count !!!`)
  process.exitCode = 1
}
