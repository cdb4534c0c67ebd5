// What a flush's planning costs cold: on each shop unit of `--cell` (loaded and changed by the bench's
// own path, `pipeflushShop(...).prepare`), `em.plan()` timed right after the unit's reads, then the
// same plan again at once, then the unit flushed; with nothing between the reads and the first plan,
// with a macrotask, with a 1 ms timer (the process idle), and with 1 ms of spinning (busy, touching
// nothing). p50s of `process.cpuUsage` (µs) over 350 units each, after 50. Shows whether the first
// plan pays for the wait or for what ran before it.
//
//   npx node --conditions=@pipeflush/source bench/tools/plan-cold.ts [--cell mix] [--driver pg]
import { parseArgs } from 'node:util'
import { startBenchEnv } from '../src/env/services.ts'
import { openDriver } from '../src/series/driver-client.ts'
import { SHOP_CELLS, type ShopCell, shopWork } from '../src/series/shop-cells.ts'
import { pipeflushShop } from '../src/series/shop-pipeflush.ts'
import type { DriverName } from '../src/series/types.ts'

const { values } = parseArgs({
  options: { cell: { type: 'string', default: 'mix' }, driver: { type: 'string', default: 'pg' } },
})
const cell = values.cell as ShopCell
if (!SHOP_CELLS.includes(cell)) throw new Error(`--cell: one of ${SHOP_CELLS.join(', ')}`)
const GAPS = {
  none: async () => {},
  macrotask: () => new Promise<void>((resolve) => setImmediate(resolve)),
  'idle 1 ms': () => new Promise<void>((resolve) => setTimeout(resolve, 1)),
  'spin 1 ms': async () => {
    const t = performance.now()
    while (performance.now() - t < 1) {}
  },
} as const
const cpu = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
const env = await startBenchEnv(() => {})
try {
  const c = await openDriver(values.driver as DriverName, env.target.url, 1)
  try {
    const shop = pipeflushShop(c)
    const work = shopWork(cell)
    for (const [gap, wait] of Object.entries(GAPS)) {
      const first: number[] = []
      const again: number[] = []
      for (let i = 0; i < 400; i++) {
        const em = await shop.prepare(work)
        await wait()
        const t0 = cpu()
        em.plan()
        const t1 = cpu()
        em.plan()
        const t2 = cpu()
        await em.flush()
        if (i < 50) continue
        first.push(t1 - t0)
        again.push(t2 - t1)
      }
      console.log(
        `${cell} ${values.driver} ${gap.padEnd(10)} first plan ${median(first)} µs, again ${median(again)} µs`,
      )
    }
  } finally {
    await c.close()
  }
} finally {
  await env.stop()
}
