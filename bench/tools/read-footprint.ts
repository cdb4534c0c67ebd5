// The functions of pipeflush's core that one read batch runs, counted exactly as `flush-footprint.ts`
// counts a flush's (V8's precise coverage with call counts): the bookstore's graph load of
// `read-pair-cpu.ts` (`em.load('author', 1, { with })` on a fresh fork: six selects, 25 rows) and a
// find of an author's books, `--loads` times each after a warm-up, per driver.
//
//   npx node --conditions=@pipeflush/source bench/tools/read-footprint.ts [--drivers pg,postgres.js]
//     [--loads 200] [--list]
import { Session } from 'node:inspector/promises'
import { parseArgs } from 'node:util'
import { type EntityManager, EntityManager as Manager } from '@pipeflush/core'
import { createDatabase, startPostgres } from '@pipeflush/testkit'
import type pg from 'pg'
import postgres from 'postgres'
import { footprint, take } from '../src/measure/coverage.ts'
import { toolPool } from '../src/series/tool-pool.ts'
import { DDL, WITH } from './bookstore-graph.ts'

const { values } = parseArgs({
  options: {
    drivers: { type: 'string', default: 'pg,postgres.js' },
    loads: { type: 'string', default: '200' },
    list: { type: 'boolean', default: false },
  },
})
const loads = Number(values.loads)

const READS: Record<string, (em: EntityManager) => Promise<unknown>> = {
  graph: (em) => em.load('author', 1, { with: WITH }),
  find: (em) => em.find('book', { author_id: 1 }),
}

const server = await startPostgres()
const session = new Session()
session.connect()
try {
  const url = await createDatabase(server.url, 'pf_read_footprint')
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  await admin.unsafe(DDL)
  await admin.end()
  await session.post('Profiler.enable')
  for (const driver of values.drivers.split(',')) {
    const client =
      driver === 'pg'
        ? toolPool({ connectionString: url, max: 1, pipeline: true } as pg.PoolConfig)
        : postgres(url, { max: 1, onnotice: () => {} })
    try {
      const root = await Manager.connect(client)
      for (const [name, read] of Object.entries(READS)) {
        for (let i = 0; i < 50; i++) await read(root.fork())
        await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false })
        const calls = new Map<string, number>()
        for (let i = 0; i < loads; i++) {
          await take(session)
          await read(root.fork())
          for (const [f, n] of await take(session)) calls.set(f, (calls.get(f) ?? 0) + n)
        }
        await session.post('Profiler.stopPreciseCoverage')
        const { every, some, calls: perRead, list } = footprint(calls, loads)
        console.log(
          `${name.padEnd(6)} ${driver.padEnd(11)} ${every} functions run by every read (${some} by some), ${perRead.toFixed(0)} calls a read`,
        )
        if (values.list) for (const [f, n] of list) console.log(`  ${n.toFixed(2).padStart(8)}  ${f}`)
      }
    } finally {
      await client.end()
    }
  }
} finally {
  session.disconnect()
  await server.stop()
}
