// Client CPU per read of two builds of pipeflush's core in one process, as `ab-cpu.ts` does for
// flushes: an earlier commit's `packages/core/src` (`--before`) against this tree's, read by read in
// turn, the order swapped every read, each build on a pool of one connection of its own, on the
// bookstore (`bookstore-graph.ts`). Cells: `graph`, the graph load of `read-pair-cpu.ts`
// (`em.load('author', 1, { with })` on a fresh fork: six selects, 25 rows); `find`, the books of an
// author without relations (one select, 3 rows). p50 of each, their ratio, and the median of the
// ratios of consecutive pairs.
//
//   npx node --conditions=@pipeflush/source bench/tools/ab-read-cpu.ts --before <commit> [--cells graph,find]
//     [--drivers pg,postgres.js] [--reads 2000]
import { parseArgs } from 'node:util'
import type * as Core from '@pipeflush/core'
import { createDatabase, startPostgres } from '@pipeflush/testkit'
import type pg from 'pg'
import postgres from 'postgres'
import { coreBuilds, median } from '../src/measure/core-builds.ts'
import { toolPool } from '../src/series/tool-pool.ts'
import { DDL, WITH } from './bookstore-graph.ts'

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    cells: { type: 'string', default: 'graph,find' },
    drivers: { type: 'string', default: 'pg,postgres.js' },
    reads: { type: 'string', default: '2000' },
  },
})
if (values.before === undefined) throw new Error('--before <commit>: the build to compare this tree with')
const reads = Number(values.reads)
const WARMUP = 200
const builds = await coreBuilds(values.before)

const CELLS: Record<string, (em: Core.EntityManager) => Promise<unknown>> = {
  graph: (em) => em.load('author', 1, { with: WITH }),
  find: (em) => em.find('book', { author_id: 1 }),
}

const server = await startPostgres()
try {
  const url = await createDatabase(server.url, 'pf_ab_read_cpu')
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  await admin.unsafe(DDL)
  await admin.end()
  for (const driver of values.drivers.split(',')) {
    const clients = builds.map(() =>
      driver === 'pg'
        ? toolPool({ connectionString: url, max: 1, pipeline: true } as pg.PoolConfig)
        : postgres(url, { max: 1, onnotice: () => {} }),
    )
    try {
      const roots = await Promise.all(builds.map(({ core }, k) => core.EntityManager.connect(clients[k]!)))
      for (const cell of values.cells.split(',')) {
        const read = CELLS[cell]
        if (read === undefined) throw new Error(`--cells: ${Object.keys(CELLS).join(', ')}`)
        const times: number[][] = [[], []]
        for (let i = 0; i < WARMUP + reads; i++) {
          for (const k of i % 2 === 0 ? [0, 1] : [1, 0]) {
            const t = process.cpuUsage()
            await read(roots[k]!.fork())
            const d = process.cpuUsage(t)
            if (i >= WARMUP) times[k]!.push(d.user + d.system)
          }
        }
        const [a, b] = times as [number[], number[]]
        const pairs = a.map((x, i) => b[i]! / x)
        console.log(
          `${cell.padEnd(6)} ${driver.padEnd(11)} p50 µs: ${builds[0].name} ${median(a)}, ${builds[1].name} ${median(b)}; ratio ${(median(b) / median(a)).toFixed(3)}, median of pair ratios ${median(pairs).toFixed(3)}`,
        )
      }
    } finally {
      for (const c of clients) await c.end()
    }
  }
} finally {
  await server.stop()
}
