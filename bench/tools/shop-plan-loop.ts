// CPU of planning one shop cell's unit (`em.plan()`: changes found, values checked and encoded, rows
// grouped, statements ordered, ids assigned, texts written), no connection: the units prepared first
// (loaded and changed in forks), then planned in a tight loop, warm (µs per plan, mean), and once
// each right before its flush, cold, as a request meets it (p50). With `--profile <file>`, the warm
// loop is profiled (`--repeat` plans of each unit).
//
//   npx node --conditions=@pipeflush/source bench/tools/shop-plan-loop.ts [--cell graph] [--units 400] [--repeat 20] [--profile /tmp/x.cpuprofile]
import { writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector/promises'
import { parseArgs } from 'node:util'
import { startBenchEnv } from '../src/env/services.ts'
import { openDriver } from '../src/series/driver-client.ts'
import { FIXTURE_UNITS, type ShopCell, shopWork } from '../src/series/shop-cells.ts'
import { pipeflushShop } from '../src/series/shop-pipeflush.ts'

const { values } = parseArgs({
  options: {
    cell: { type: 'string', default: 'graph' },
    units: { type: 'string', default: '400' },
    repeat: { type: 'string', default: '20' },
    profile: { type: 'string' },
  },
})
const units = Math.min(Number(values.units), FIXTURE_UNITS)
const repeat = Number(values.repeat)
const cpu = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}
const env = await startBenchEnv(() => {})
try {
  const c = await openDriver('pg', env.target.url, 1)
  try {
    const shop = pipeflushShop(c)
    const work = shopWork(values.cell as ShopCell)
    const ems = []
    for (let i = 0; i < units; i++) ems.push(await shop.prepare(work))
    for (const em of ems) em.plan()
    const session = values.profile ? new Session() : undefined
    if (session) {
      session.connect()
      await session.post('Profiler.enable')
      await session.post('Profiler.setSamplingInterval', { interval: 50 })
      await session.post('Profiler.start')
    }
    const t = cpu()
    for (let k = 0; k < repeat; k++) for (const em of ems) em.plan()
    const warm = (cpu() - t) / (repeat * units)
    if (session) {
      const { profile } = await session.post('Profiler.stop')
      await writeFile(values.profile!, JSON.stringify(profile))
    }
    console.log(`${values.cell}: em.plan() warm ${warm.toFixed(1)} µs (mean of ${repeat * units})`)
  } finally {
    await c.close()
  }
} finally {
  await env.stop()
}
