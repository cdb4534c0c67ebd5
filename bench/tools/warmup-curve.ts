// How a flush's client CPU settles as V8 compiles the code it runs: pipeflush-burst and the raw driver
// sending the same statements as one simple-protocol message (raw-simple), flush by flush in turn on
// one driver from a new process, p50 of each per window of flushes and their ratio. `process.cpuUsage`
// counts every thread of the process, V8's background compiler among them: until a flush's functions
// are optimized, compiling them is part of what a flush costs (see docs/benchmark.md, "Warm-up").
//
//   npx node --conditions=@pipeflush/source bench/tools/warmup-curve.ts [--cells 1x1,graph] [--drivers pg]
//     [--flushes 12000] [--window 1000]
import { parseArgs } from 'node:util'
import { startBenchEnv } from '../src/env/services.ts'
import { selectSeries } from '../src/series/index.ts'
import { type ShopCell, shopWork } from '../src/series/shop-cells.ts'
import type { DriverName, SeriesClient } from '../src/series/types.ts'
import { matrixWork, type Work } from '../src/workload.ts'

const { values } = parseArgs({
  options: {
    cells: { type: 'string', default: '1x1,graph' },
    drivers: { type: 'string', default: 'pg,postgres.js' },
    flushes: { type: 'string', default: '12000' },
    window: { type: 'string', default: '1000' },
  },
})
const flushes = Number(values.flushes)
const window = Number(values.window)

function workOf(cell: string): Work {
  const m = /^(\d+)x(\d+)$/.exec(cell)
  return m ? matrixWork(Number(m[1]), Number(m[2])) : shopWork(cell as ShopCell)
}

/** Client CPU of one flush (its unit prepared untimed first), µs. */
async function once(client: SeriesClient, work: Work): Promise<number> {
  if (work.shop) await client.prepare?.(work)
  const before = process.cpuUsage()
  await client.flush(work)
  const d = process.cpuUsage(before)
  return d.user + d.system
}

const p50 = (t: readonly number[]) => [...t].sort((x, y) => x - y)[Math.floor(t.length / 2)]!

const env = await startBenchEnv(() => {})
try {
  for (const driver of values.drivers.split(',') as DriverName[]) {
    const ours = selectSeries(['pipeflush-burst'], [driver])[0]!
    const raw = selectSeries(['raw-simple'], [driver])[0]!
    const a = await ours.open(env.target, { pool: 1 })
    const b = await raw.open(env.target, { pool: 1 })
    try {
      for (const cell of values.cells.split(',')) {
        const work = workOf(cell)
        const line: string[] = []
        for (let done = 0; done < flushes; done += window) {
          const ta: number[] = []
          const tb: number[] = []
          for (let i = 0; i < window; i++) {
            ta.push(await once(a, work))
            tb.push(await once(b, work))
          }
          line.push(`${done + window}: ${p50(ta)}/${p50(tb)} ${(p50(ta) / p50(tb)).toFixed(2)}x`)
        }
        console.log(
          `${cell.padEnd(6)} ${driver.padEnd(12)} p50 µs pipeflush/raw-simple after n flushes: ${line.join(', ')}`,
        )
      }
    } finally {
      await a.close()
      await b.close()
    }
  }
} finally {
  await env.stop()
}
