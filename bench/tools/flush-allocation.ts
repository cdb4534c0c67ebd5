// Heap allocated per flush: pipeflush-burst and the raw driver sending the same statements as one
// simple-protocol message (raw-simple), after a warm-up, read from `process.memoryUsage().heapUsed`
// around each flush (flushes during which a collection ran, whose difference is not positive, left
// out; run with a large young generation so that few are). p50 per cell and driver, KB. Allocation
// is counted, not timed: it does not move with the machine's load.
//
//   npx node --max-semi-space-size=64 --conditions=@pipeflush/source bench/tools/flush-allocation.ts
//     [--cells 1x1,10x1,5x10,graph,update,delete,mix] [--drivers pg,postgres.js] [--flushes 400] [--warmup 1500]
import { parseArgs } from 'node:util'
import { startBenchEnv } from '../src/env/services.ts'
import { selectSeries } from '../src/series/index.ts'
import { SHOP_CELLS, type ShopCell, shopWork } from '../src/series/shop-cells.ts'
import type { DriverName, SeriesClient } from '../src/series/types.ts'
import { matrixWork, type Work } from '../src/workload.ts'

const { values } = parseArgs({
  options: {
    cells: { type: 'string', default: ['1x1', '10x1', '5x10', ...SHOP_CELLS].join(',') },
    drivers: { type: 'string', default: 'pg,postgres.js' },
    flushes: { type: 'string', default: '400' },
    warmup: { type: 'string', default: '1500' },
  },
})
const cells = values.cells.split(',')
const drivers = values.drivers.split(',') as DriverName[]
const flushes = Number(values.flushes)
const warmup = Number(values.warmup)

function workOf(cell: string): Work {
  const m = /^(\d+)x(\d+)$/.exec(cell)
  return m ? matrixWork(Number(m[1]), Number(m[2])) : shopWork(cell as ShopCell)
}

/** Bytes allocated by one flush of `work` (its unit prepared first), or undefined when a collection ran. */
async function allocated(client: SeriesClient, work: Work): Promise<number | undefined> {
  if (work.shop) await client.prepare?.(work)
  const before = process.memoryUsage().heapUsed
  await client.flush(work)
  const d = process.memoryUsage().heapUsed - before
  return d > 0 ? d : undefined
}

const p50 = (t: number[]) => [...t].sort((x, y) => x - y)[t.length >> 1] ?? Number.NaN

const env = await startBenchEnv(() => {})
try {
  for (const driver of drivers) {
    const ours = await selectSeries(['pipeflush-burst'], [driver])[0]!.open(env.target, { pool: 1 })
    const raw = await selectSeries(['raw-simple'], [driver])[0]!.open(env.target, { pool: 1 })
    try {
      for (const cell of cells) {
        const work = workOf(cell)
        for (let i = 0; i < warmup; i++) {
          await allocated(ours, work)
          await allocated(raw, work)
        }
        const a: number[] = []
        const b: number[] = []
        for (let i = 0; i < flushes; i++) {
          const x = await allocated(ours, work)
          if (x !== undefined) a.push(x)
          const y = await allocated(raw, work)
          if (y !== undefined) b.push(y)
        }
        const kb = (n: number) => (n / 1024).toFixed(1)
        console.log(
          `${cell.padEnd(6)} ${driver.padEnd(12)} pipeflush ${kb(p50(a))} KB  raw-simple ${kb(p50(b))} KB  ratio ${(p50(a) / p50(b)).toFixed(2)}x  (${a.length} and ${b.length} flushes without a collection)`,
        )
      }
    } finally {
      await ours.close()
      await raw.close()
    }
  }
} finally {
  await env.stop()
}
