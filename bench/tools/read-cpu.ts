// Client CPU of one graph load (an author with their books, the books' reviews, tag links, tags and
// publishers: the bookstore example's PATCH read, six selects in one round trip) through pipeflush,
// per load: p50 of `process.cpuUsage` around `em.load` on a fresh fork, on one warm connection with no
// added latency. `--idle <ms>` waits that long before each load, as a request waits for the network:
// the same code then runs on cold caches (on this project's 2-core virtual machines a 20 ms wait about
// doubles it), which is what a request at 20 ms RTT pays.
//
//   npx node --conditions=@pipeflush/source bench/tools/read-cpu.ts [--drivers pg,postgres.js]
//     [--loads 300] [--idle 0,20]
import { parseArgs } from 'node:util'
import { EntityManager } from '@pipeflush/core'
import { createDatabase, startPostgres } from '@pipeflush/testkit'
import type pg from 'pg'
import postgres from 'postgres'
import { toolPool } from '../src/series/tool-pool.ts'
import { DDL, WITH } from './bookstore-graph.ts'

const { values } = parseArgs({
  options: {
    drivers: { type: 'string', default: 'pg,postgres.js' },
    loads: { type: 'string', default: '300' },
    idle: { type: 'string', default: '0,20' },
  },
})
const loads = Number(values.loads)
const idles = values.idle.split(',').map(Number)
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!

const server = await startPostgres()
try {
  const url = await createDatabase(server.url, 'pf_read_cpu')
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  await admin.unsafe(DDL)
  await admin.end()
  for (const driver of values.drivers.split(',')) {
    const client =
      driver === 'pg'
        ? toolPool({ connectionString: url, max: 1, pipeline: true } as pg.PoolConfig)
        : postgres(url, { max: 1, onnotice: () => {} })
    const root = await EntityManager.connect(client)
    for (let i = 0; i < 50; i++) await root.fork().load('author', 1, { with: WITH })
    for (const idle of idles) {
      const cpu: number[] = []
      for (let i = 0; i < loads; i++) {
        const em = root.fork()
        if (idle > 0) await new Promise((resolve) => setTimeout(resolve, idle))
        const before = process.cpuUsage()
        await em.load('author', 1, { with: WITH })
        const d = process.cpuUsage(before)
        cpu.push(d.user + d.system)
      }
      console.log(
        `${driver.padEnd(12)} idle ${String(idle).padStart(3)} ms: client CPU p50 ${median(cpu)} µs per graph load`,
      )
    }
    await (client as { end(): Promise<void> }).end()
  }
} finally {
  await server.stop()
}
