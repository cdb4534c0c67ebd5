// npm run example:iot-ingest -- --latency 2 [--modes burst,off] [--sizes 100,1000,5000,10000,50000,100000]
// The psql 18 pipeline article's test: device readings upserted with `on conflict (device,
// recorded_at) do update`, in batches of 100 to 100,000, here through pipeflush's unit of work. Each
// batch is ingested twice: new readings (inserts), then the same ones re-measured (updates).
import { formatTable, parseExampleArgs, startExampleDatabase } from '@pipeflush/example-support'
import { createEntityManagerFactory, describeFlush } from '@pipeflush/kysely'
import { ingest, ingestRowByRow } from './ingest.ts'
import { makeReadings, remeasure } from './readings.ts'
import { createSchema, type DB, resetData } from './schema.ts'

const args = parseExampleArgs(process.argv.slice(2), {
  sizes: { type: 'string', default: '100,1000,5000,10000,50000,100000' },
  'row-by-row-max': { type: 'string', default: '1000' },
})
const sizes = String(args.values['sizes']).split(',').map(Number)
const rowByRowMax = Number(args.values['row-by-row-max'])
const db = await startExampleDatabase({ name: 'iot', latencyMs: args.latencyMs })
const rows: (string | number)[][] = []
try {
  console.log(db.description)
  const admin = db.connect(1)
  await createSchema(admin.sql)
  const start = new Date('2025-10-01T00:00:00Z')
  // One pool and unit-of-work factory per mode, used in turn for each batch size, so that both modes
  // see the same machine (timings on a busy machine drift).
  const factories = []
  for (const mode of args.modes) {
    const { sql } = db.connect(1)
    const factory = await createEntityManagerFactory<DB>({ sql, pipeline: mode })
    // Warm-up: prepares the statement on the connection, and lets V8 compile the encoding code.
    await ingest(factory, makeReadings(5000, { seed: 0, start }))
    factories.push({ mode, factory })
  }
  for (const size of sizes) {
    console.log(`\n=== ${size} readings ===`)
    const batch = makeReadings(size, { seed: size, start })
    for (const { mode, factory } of factories) {
      await resetData(admin.sql)
      for (const [pass, readings] of [
        ['new', batch],
        ['again', remeasure(batch, 0.5)],
      ] as const) {
        const report = await ingest(factory, readings)
        const stored = Number((await admin.sql`select count(*)::int as n from reading`)[0]?.['n'])
        const rate = Math.round(size / (report.durationMs / 1000))
        console.log(`${pass.padEnd(5)} ${describeFlush(report)}; ${stored} rows stored, ${rate} readings/s`)
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
    const { sql } = db.connect(1)
    for (const size of small) {
      await resetData(admin.sql)
      const { durationMs } = await ingestRowByRow(sql, makeReadings(size, { seed: size, start }))
      const rate = Math.round(size / (durationMs / 1000))
      console.log(
        `${String(size).padStart(6)} readings: ${size} statements, ${size + 2} round trips, ${durationMs.toFixed(1)} ms, ${rate} readings/s`,
      )
      rows.push([size, 'new', 'row by row', size, size, size + 2, durationMs.toFixed(1), rate])
    }
  }
  rows.sort((a, b) => Number(a[0]) - Number(b[0]))
  console.log(`\n=== all batches, ${args.latencyMs} ms latency ===`)
  console.log(
    formatTable(
      ['readings', 'pass', 'mode', 'upserted', 'statements', 'round trips', 'ms', 'readings/s'],
      rows,
    ),
  )
} finally {
  await db.stop()
}
