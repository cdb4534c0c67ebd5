// Client CPU of pipeflush-burst's em.flush() alone on the shop cells, per flush (p50, mean), without
// the raw series beside it: a quick look at a change to the flush path (noisy: about 10% from run to
// run; the CPU scenario's side-by-side ratios are the figures to compare). Optionally writes a V8 CPU
// profile of the measured flushes (`--profile <dir>`, sampled every 50 µs) or a sampling heap profile
// of what they allocate (`--heap <dir>`, every 256 bytes; *.heapprofile).
//
//   npx node --conditions=@pipeflush/source bench/tools/shop-cpu.ts [--cells graph,mix] [--drivers pg]
//     [--flushes 900] [--profile /tmp/p] [--heap /tmp/h]
import { mkdir, writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector/promises'
import { join } from 'node:path'
import { startBenchEnv } from '../src/env/services.ts'
import { openDriver } from '../src/series/driver-client.ts'
import { FIXTURE_UNITS, SHOP_CELLS, type ShopCell, shopWork } from '../src/series/shop-cells.ts'
import { pipeflushShop } from '../src/series/shop-pipeflush.ts'
import type { DriverName } from '../src/series/types.ts'

const args = process.argv.slice(2)
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`)
  return i < 0 ? undefined : args[i + 1]
}
const cells = (arg('cells')?.split(',') ?? SHOP_CELLS) as ShopCell[]
const drivers = (arg('drivers')?.split(',') ?? ['postgres.js', 'pg']) as DriverName[]
const flushes = Number(arg('flushes') ?? 900)
const profileDir = arg('profile')
const heapDir = arg('heap')
/** Units flushed before the measured ones. */
const WARMUP = 40
// The measured units are all prepared (read) before the first is flushed, so that the profile holds
// flushes only; a unit past the fixtures would read a row an earlier unit then writes, and its flush
// would fail with OPTIMISTIC_LOCK, as it should.
if (!(flushes > 0 && flushes + WARMUP <= FIXTURE_UNITS))
  throw new Error(`--flushes: 1 to ${FIXTURE_UNITS - WARMUP} (each unit its own fixture rows)`)

const env = await startBenchEnv(() => {})
const session = profileDir || heapDir ? new Session() : undefined
try {
  if (session) {
    session.connect()
    await session.post('Profiler.enable')
    await session.post('Profiler.setSamplingInterval', { interval: 50 })
    await session.post('HeapProfiler.enable')
  }
  for (const driver of drivers)
    for (const cell of cells) {
      const c = await openDriver(driver, env.target.url, 1)
      try {
        const shop = pipeflushShop(c)
        const work = shopWork(cell)
        for (let i = 0; i < WARMUP; i++) await (await shop.prepare(work)).flush()
        const ems = []
        for (let i = 0; i < flushes; i++) ems.push(await shop.prepare(work))
        const times: number[] = []
        if (profileDir) await session!.post('Profiler.start')
        if (heapDir)
          await session!.post('HeapProfiler.startSampling', {
            samplingInterval: 256,
            includeObjectsCollectedByMajorGC: true,
            includeObjectsCollectedByMinorGC: true,
          })
        const all = process.cpuUsage()
        for (const em of ems) {
          const before = process.cpuUsage()
          await em.flush()
          const d = process.cpuUsage(before)
          times.push(d.user + d.system)
        }
        const total = process.cpuUsage(all)
        if (profileDir) {
          const { profile } = await session!.post('Profiler.stop')
          await mkdir(profileDir, { recursive: true })
          await writeFile(join(profileDir, `shop-${driver}-${cell}.cpuprofile`), JSON.stringify(profile))
        }
        if (heapDir) {
          const { profile } = await session!.post('HeapProfiler.stopSampling')
          await mkdir(heapDir, { recursive: true })
          await writeFile(join(heapDir, `shop-${driver}-${cell}.heapprofile`), JSON.stringify(profile))
        }
        times.sort((a, b) => a - b)
        const p = (q: number) => times[Math.floor(q * (times.length - 1))]
        const mean = (total.user + total.system) / times.length
        console.log(
          `${cell.padEnd(7)} ${driver.padEnd(12)} p50 ${p(0.5)} µs  p25 ${p(0.25)}  p75 ${p(0.75)}  mean ${mean.toFixed(0)} µs`,
        )
      } finally {
        await c.close()
      }
    }
} finally {
  session?.disconnect()
  await env.stop()
}
