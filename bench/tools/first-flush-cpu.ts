// Client CPU of the first flush of a statement shape against the same flush repeated: what a shape
// costs the first time it is met (its SQL text and its returning, cached from then on). A
// table of 12 nullable columns; shape n inserts one row writing the columns of n's bits and updates
// a loaded row's columns of n's bits shifted, so every shape is new to the process. Per shape: the
// first flush, then 15 more of it (their median); the report gives medians over the shapes and the
// ratio, per driver, on one warm connection without added latency.
//
//   npx node --conditions=@pipeflush/source bench/tools/first-flush-cpu.ts [--drivers pg,postgres.js]
//     [--shapes 150]
import { parseArgs } from 'node:util'
import { EntityManager } from '@pipeflush/core'
import { createDatabase, startPostgres } from '@pipeflush/testkit'
import type pg from 'pg'
import postgres from 'postgres'
import { toolPool } from '../src/series/tool-pool.ts'

const { values } = parseArgs({
  options: {
    drivers: { type: 'string', default: 'pg,postgres.js' },
    shapes: { type: 'string', default: '150' },
  },
})
const shapes = Number(values.shapes)
const COLUMNS = Array.from({ length: 12 }, (_, i) => `c${i}`)
const DDL = `
  create table wide (id bigserial primary key, ${COLUMNS.map((c) => `${c} int`).join(', ')});
  insert into wide (c0) select g from generate_series(1, 100) g;
`
const REPEATS = 15
const median = (a: readonly number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!
const cpuOf = async (fn: () => Promise<unknown>) => {
  const before = process.cpuUsage()
  await fn()
  const d = process.cpuUsage(before)
  return d.user + d.system
}

/** The columns of shape `n`: those of its bits (at least one). */
const columnsOf = (n: number) => COLUMNS.filter((_, i) => (n >> i) & 1)

const server = await startPostgres()
try {
  const url = await createDatabase(server.url, 'pf_first_flush_cpu')
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  await admin.unsafe(DDL)
  await admin.end()
  // The same shapes for every driver: a driver's run must find them new, so each gets its own range.
  let next = 1
  for (const driver of values.drivers.split(',')) {
    const client =
      driver === 'pg'
        ? toolPool({ connectionString: url, max: 1, pipeline: true } as pg.PoolConfig)
        : postgres(url, { max: 1, onnotice: () => {} })
    const root = await EntityManager.connect(client)
    const flushOf = async (n: number, i: number) => {
      const em = root.fork()
      const [stored] = await em.find('wide', { id: 1 + (i % 100) })
      const row: Record<string, unknown> = {}
      for (const c of columnsOf(n)) row[c] = i
      em.create('wide', row)
      for (const c of columnsOf(n)) (stored as Record<string, unknown>)[c] = i + 1
      return () => em.flush()
    }
    // Warm: the process's other code paths (a shape of its own, never measured).
    for (let i = 0; i < 50; i++) await (await flushOf(4095, i))()
    const firsts: number[] = []
    const repeated: number[] = []
    for (let s = 0; s < shapes; s++) {
      const n = next++
      firsts.push(await cpuOf(await flushOf(n, 0)))
      const again: number[] = []
      for (let i = 1; i <= REPEATS; i++) again.push(await cpuOf(await flushOf(n, i)))
      repeated.push(median(again))
    }
    const first = median(firsts)
    const warm = median(repeated)
    console.log(
      `${driver.padEnd(12)} ${shapes} shapes: first flush p50 ${first} µs, repeated p50 ${warm} µs: ${(first / warm).toFixed(2)}x`,
    )
    await (client as { end(): Promise<void> }).end()
  }
} finally {
  await server.stop()
}
