// npm run example:drizzle -- --latency 20 [--driver pg|postgres.js] [--modes burst,off] [--runs 3] [--no-drizzle]
// Starts PostgreSQL and toxiproxy (or uses DATABASE_URL / TOXIPROXY_URL), creates the bookstore's
// tables, and sends the script's requests to the bookstore written with @pipeflush/drizzle (in each
// pipeline mode), then to the same bookstore written with Drizzle alone: once unprinted (connections
// opened), then --runs times from the same rows. Prints each request's round trips counted at the
// pool's socket and its time in RTTs of a `select 1` (the median of the runs), side by side, checks
// that both bookstores gave the same answers and every flush report equalled the socket, and stops.
// Each configuration has its own pool of one connection, so that round trips are counted exactly.
import { isDeepStrictEqual } from 'node:util'
import { createEntityManagerFactory } from '@pipeflush/drizzle'
import { type ExamplePool, parseExampleArgs, startExampleDatabase } from '@pipeflush/example-support'
import { comparable } from './answers.ts'
import { appDrizzle } from './app-db.ts'
import { type FlushCount, type Measured, measureRtt, meteredRun, runScript } from './measure.ts'
import { printTable } from './print.ts'
import type { Bookstore } from './requests/bookstore.ts'
import { drizzleBookstore } from './requests/drizzle-alone.ts'
import { pipeflushBookstore } from './requests/pipeflush.ts'
import { DDL, RESET } from './schema.ts'

const { latencyMs, modes, driver, values, flags } = parseExampleArgs(process.argv.slice(2), {
  runs: { type: 'string', default: '3' },
  'no-drizzle': { type: 'boolean', default: false },
})
const runs = Number(values['runs'])
if (!Number.isInteger(runs) || runs < 1)
  throw new Error(`--runs must be a whole number of at least 1, not ${values['runs']}`)

const db = await startExampleDatabase({ name: 'drizzle_bookstore', latencyMs, driver })
let problems = 0
try {
  console.log(db.description)
  const admin = db.connect(1) // stands for the migration tool: creates and resets the tables
  await admin.query(DDL)
  const columns = new Map<string, Measured[][]>()

  /** Runs the script once unprinted, then `runs` times, each from the seeded rows. */
  const measure = async (
    label: string,
    store: Bookstore,
    app: ExamplePool,
    flushOf?: () => FlushCount | undefined,
  ) => {
    await admin.query(RESET)
    await runScript(store, app.counter)
    const measured: Measured[][] = []
    for (let run = 0; run < runs; run++) {
      await admin.query(RESET)
      measured.push(await runScript(store, app.counter, flushOf))
    }
    columns.set(label, measured)
  }

  for (const mode of modes) {
    const app = db.connect(1)
    const appDb = appDrizzle(app)
    const factory = await createEntityManagerFactory({ db: appDb, pipeline: mode })
    const metered = meteredRun(factory, app.counter)
    await measure(mode, pipeflushBookstore(appDb, metered.run), app, metered.last)
  }
  if (!flags['no-drizzle']) {
    const app = db.connect(1)
    await measure('Drizzle', drizzleBookstore(appDrizzle(app)), app)
  }

  const rttMs = await measureRtt(admin.query)
  console.log(
    `\n=== the bookstore's requests, side by side (${driver}, ${latencyMs} ms latency, median of ${runs} run${runs === 1 ? '' : 's'}; select 1 RTT ${rttMs.toFixed(1)} ms) ===`,
  )
  console.log(printTable(columns, rttMs))

  // Every flush report equals the socket's count; every bookstore answered as the first did.
  for (const [label, measured] of columns)
    for (const run of measured)
      for (const m of run)
        if (m.flush !== undefined && m.flush.reported !== m.flush.socket) {
          problems++
          console.error(
            `!!! ${label}, ${m.step.name}: the flush reports ${m.flush.reported} round trips, the socket counted ${m.flush.socket} !!!`,
          )
        }
  const [first, ...others] = [...columns]
  for (const [label, measured] of others)
    measured[0]!.forEach((m, i) => {
      const expected = first![1][0]![i]!
      if (!isDeepStrictEqual(comparable(m.answer), comparable(expected.answer))) {
        problems++
        console.error(`!!! ${m.step.name}: ${label} answered otherwise than ${first![0]} !!!`)
      }
    })
  console.log(
    problems === 0
      ? `\nthe same answers from every bookstore; every flush report equals the socket count`
      : '',
  )
} finally {
  await db.stop()
}
if (problems > 0) process.exitCode = 1
