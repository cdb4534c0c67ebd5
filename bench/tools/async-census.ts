// How many async resources (promises, ticks, immediates, timers) one flush and one read batch make,
// counted exactly with `async_hooks` beside the raw driver doing the same send: a flush of one new row
// (`em.fork()`, `em.create`, `em.flush()`) against the raw simple-protocol insert on a reserved
// connection, and the bookstore's graph load against its six selects sent the driver's way. Each
// promise is an allocation and, once settled, a microtask: a count the flush path can be held to
// where its CPU time is too noisy to tell a change of a few microseconds. With `--sites`, where the
// flush's and the load's are made (file and line).
//
//   npx node --conditions=@pipeflush/source bench/tools/async-census.ts [--drivers pg,postgres.js]
//     [--sites]
import { createHook } from 'node:async_hooks'
import { parseArgs } from 'node:util'
import { EntityManager } from '@pipeflush/core'
import { createDatabase, startPostgres } from '@pipeflush/testkit'
import postgres from 'postgres'
import { openDriver } from '../src/series/driver-client.ts'
import type { DriverName } from '../src/series/types.ts'
import { DDL, WITH } from './bookstore-graph.ts'

const { values } = parseArgs({
  options: {
    drivers: { type: 'string', default: 'pg,postgres.js' },
    sites: { type: 'boolean', default: false },
  },
})
const RUNS = 100

let counting = false
const sites = new Map<string, number>()
let total = 0
const hook = createHook({
  init(_id, type) {
    if (!counting) return
    total++
    if (!values.sites) return
    const stack = (new Error().stack ?? '').split('\n').slice(2)
    const site = stack.find((l) => !l.includes('node:internal')) ?? ''
    const key = `${type} ${site.trim().replace(`file://${process.cwd()}/`, '')}`
    sites.set(key, (sites.get(key) ?? 0) + 1)
  },
})

/** Async resources per call of `run`, over {@link RUNS} calls after as many untimed ones. */
async function census(run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < RUNS; i++) await run()
  sites.clear()
  total = 0
  hook.enable()
  counting = true
  for (let i = 0; i < RUNS; i++) await run()
  counting = false
  hook.disable()
  return total / RUNS
}

const server = await startPostgres()
try {
  const url = await createDatabase(server.url, 'pf_async_census')
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  await admin.unsafe(`${DDL}; create table note (id bigserial primary key, body text)`)
  await admin.end()
  for (const driver of values.drivers.split(',')) {
    const c = await openDriver(driver as DriverName, url, 1)
    const pool = c.driver === 'pg' ? c.client : undefined
    const sql = c.driver === 'postgres.js' ? c.client : undefined
    try {
      const root = await EntityManager.connect(c.client)
      const flush = await census(async () => {
        const em = root.fork()
        em.create('note', { body: 'x' })
        await em.flush()
      })
      const flushSites = [...sites]
      const insert = "insert into note (body) values ('x')"
      const rawFlush = await census(async () => {
        if (pool) {
          const client = await pool.connect()
          await client.query(insert).finally(() => client.release())
        } else {
          const r = await sql!.reserve()
          await r.unsafe(insert).finally(() => r.release())
        }
      })
      const read = await census(() => root.fork().load('author', 1, { with: WITH }))
      const readSites = [...sites]
      console.log(
        `${driver.padEnd(12)} flush of one row: ${flush} (raw insert ${rawFlush}); graph load: ${read}`,
      )
      if (values.sites)
        for (const [what, list] of [
          ['the flush', flushSites],
          ['the graph load', readSites],
        ] as const) {
          console.log(`  ${what}:`)
          for (const [site, n] of [...list].sort((a, b) => b[1] - a[1]))
            console.log(`  ${(n / RUNS).toFixed(2).padStart(6)} ${site}`)
        }
    } finally {
      await c.close()
    }
  }
} finally {
  await server.stop()
}
