// npm run example:bookstore -- --latency 2 [--modes burst,off] [--cold] [--pool 1]
// Starts PostgreSQL and toxiproxy (or uses DATABASE_URL / TOXIPROXY_URL), serves the bookstore API
// on 127.0.0.1, sends it the scripted requests once per pipeline mode, prints what each did, stops.
// Each mode gets its own pool; unless --cold, the script runs once unprinted first, so the printed
// run shows a warm server (statements prepared on the pool's connections). The pool has one
// connection by default, so each request's round trips can be counted exactly (the script sends one
// request at a time; postgres.js pipelines a request's parallel reads on that connection).
import { parseExampleArgs, startExampleDatabase } from '@pipeflush/example-support'
import { createEntityManagerFactory } from '@pipeflush/kysely'
import { startServer } from './api/server.ts'
import { formatComparison, formatStep } from './print.ts'
import { createSchema, type DB, resetData } from './schema.ts'
import { runScript, type StepResult } from './script.ts'

const { latencyMs, modes, cold, values } = parseExampleArgs(process.argv.slice(2), {
  pool: { type: 'string', default: '1' },
})
const pool = Number(values['pool'])
const db = await startExampleDatabase({ name: 'bookstore', latencyMs })
try {
  console.log(db.description)
  const admin = db.connect(1)
  await createSchema(admin.sql)
  const byMode = new Map<string, StepResult[]>()
  for (const mode of modes) {
    const { sql, counter } = db.connect(pool)
    const factory = await createEntityManagerFactory<DB>({ sql, pipeline: mode })
    const server = await startServer(factory)
    console.log(
      `\n=== pipeline ${mode}, ${cold ? 'cold' : 'warm'} pool of ${pool}: bookstore API at ${server.url} ===`,
    )
    try {
      if (!cold) {
        await resetData(admin.sql)
        await runScript(server.url)
      }
      await resetData(admin.sql)
      const results = await runScript(server.url, counter)
      for (const step of results) console.log(formatStep(step))
      byMode.set(mode, results)
    } finally {
      await server.close()
    }
  }
  console.log(
    `\n=== the same requests, side by side (${latencyMs} ms latency${cold ? ', cold pools' : ''}) ===`,
  )
  console.log(formatComparison(byMode))
} finally {
  await db.stop()
}
