// npm run example:conduit -- --latency 20 [--driver pg|postgres.js] [--modes burst,off] [--runs 3] [--no-kysely] [--scrypt-n 16384]
// Starts PostgreSQL and toxiproxy (or uses DATABASE_URL / TOXIPROXY_URL) with the latency on the
// proxy, serves Conduit on 127.0.0.1, and runs the RealWorld suite (shared/realworld beside the
// repository) against it: on pipeflush in each pipeline mode, then on the plain Kysely repositories
// (each query awaited). Each configuration gets a pool of one connection, so that each request's
// round trips are counted exactly at the socket (newman sends one request at a time), runs the suite
// once unprinted (connections, caches, id blocks warm) and then --runs times; prints every request's
// round trips and median time in RTTs side by side, and stops. Exits 1 when an assertion of the suite
// failed or a flush report differed from the socket's count.
import { parseExampleArgs, startExampleDatabase } from '@pipeflush/example-support'
import { type Implementation, startConduit } from './app.ts'
import { formatEndpointTable, type MeasuredConfiguration } from './measure/endpoint-table.ts'
import { type MeasuredRun, measureSuite } from './measure/measure-suite.ts'
import { measureRtt } from './measure/rtt.ts'
import { createSchema } from './schema.ts'
import { findCollection } from './suite/realworld-files.ts'

const { latencyMs, modes, driver, values, flags } = parseExampleArgs(process.argv.slice(2), {
  runs: { type: 'string', default: '3' },
  'no-kysely': { type: 'boolean', default: false },
  'scrypt-n': { type: 'string', default: '16384' },
})
const runs = Number(values['runs'])
if (!Number.isInteger(runs) || runs < 1)
  throw new Error(`--runs must be a whole number >= 1, not ${values['runs']}`)
const scryptN = Number(values['scrypt-n'])
const collection = findCollection()
if (!('path' in collection)) {
  console.error(`example:conduit: ${collection.missing}`)
  process.exit(1)
}

const configurations: { label: string; implementation: Implementation; pipeline?: (typeof modes)[number] }[] =
  [
    ...modes.map((pipeline) => ({ label: pipeline, implementation: 'pipeflush' as const, pipeline })),
    ...(flags['no-kysely'] ? [] : [{ label: 'Kysely', implementation: 'kysely' as const }]),
  ]
const db = await startExampleDatabase({ name: 'conduit', latencyMs, driver })
let problems = 0
try {
  console.log(db.description)
  const admin = db.connect(1) // stands for the migration tool
  await createSchema(admin.query)
  const measured: MeasuredConfiguration[] = []
  for (const config of configurations) {
    const pool = db.connect(1)
    const conduit = await startConduit({
      pool,
      implementation: config.implementation,
      ...(config.pipeline ? { pipeline: config.pipeline } : {}),
      scryptN,
    })
    try {
      await measureSuite(conduit, collection.path) // warm-up, not shown
      const results: MeasuredRun[] = []
      for (let run = 0; run < runs; run++) results.push(await measureSuite(conduit, collection.path))
      for (const { suite } of results) {
        for (const f of suite.failures)
          console.error(`!!! ${conduit.store.name}: ${f.request}: ${f.assertion}: ${f.message}`)
        problems += suite.failures.length
      }
      const mismatches = results.flatMap((r) =>
        r.samples.filter((s) => s.flush?.socket !== undefined && s.flush.socket !== s.flush.roundTrips),
      )
      for (const s of mismatches)
        console.error(`!!! ${conduit.store.name}: ${s.name}: flush report ≠ socket count`)
      problems += mismatches.length
      const { total, failed } = results[0]!.suite.assertions
      console.log(
        `${conduit.store.name}: the suite's assertions, each of ${runs} run${runs === 1 ? '' : 's'}: ${total - failed} passed, ${failed} failed; ${results[0]!.suite.requests.length} requests`,
      )
      measured.push({ label: config.label, runs: results })
    } finally {
      await conduit.close()
    }
  }
  const rttMs = await measureRtt(admin.query)
  console.log(
    `\n=== the suite's requests, side by side (${driver}, ${latencyMs} ms latency, median of ${runs} run${runs === 1 ? '' : 's'}; select 1 RTT ${rttMs.toFixed(1)} ms) ===`,
  )
  console.log(
    'rt: round trips at the socket; flush: of which the flush; RTT: time / RTT; target: where pipeflush takes more today',
  )
  console.log(formatEndpointTable(measured, rttMs))
} finally {
  await db.stop()
}
if (problems > 0) {
  console.error(`\n!!! ${problems} problem(s): see above !!!`)
  process.exitCode = 1
}
