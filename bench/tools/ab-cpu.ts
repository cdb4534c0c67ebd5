// Client CPU per flush of two builds of pipeflush's core in one process: an earlier commit's
// `packages/core/src` (`--before`, extracted with `git archive` under `.cache/ab-cpu/`) against this
// tree's, flush by flush in turn, the order swapped every flush, each build on a pool of its own
// doing the same work (the matrix cells' new rows, or the shop cells' units on fixtures of its own).
// p50 of each, their ratio, and the median of the ratios of consecutive pairs. On this machine two
// separate runs of one build differ by 10-30%; side by side in one process, a change of a few
// percent shows. What the process shares the two builds share too: a change to timers (a timer list
// one build keeps alive serves the other's timers) does not show here.
//
//   npx node --conditions=@pipeflush/source bench/tools/ab-cpu.ts --before <commit> [--cells 1x1,10x1,graph,mix]
//     [--drivers pg,postgres.js] [--flushes 1000] [--warmup 100]
//
// `--warmup`: untimed flushes of each build per cell first. V8 compiles a flush's functions on a
// background thread, which `process.cpuUsage` counts, for thousands of flushes (see warmup-curve.ts):
// a few thousand compare the builds as a long-running server runs them.
import { parseArgs } from 'node:util'
import { startBenchEnv } from '../src/env/services.ts'
import { coreBuilds, type FlushSide, median, prepareFlush } from '../src/measure/core-builds.ts'
import { type DriverClient, openDriver } from '../src/series/driver-client.ts'
import { FIXTURE_UNITS, type ShopCell, shopWork } from '../src/series/shop-cells.ts'
import { Units } from '../src/series/shop-pipeflush.ts'
import type { DriverName } from '../src/series/types.ts'
import { matrixWork } from '../src/workload.ts'

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    cells: { type: 'string', default: '1x1,10x1,graph,mix' },
    drivers: { type: 'string', default: 'pg,postgres.js' },
    flushes: { type: 'string', default: '1000' },
    warmup: { type: 'string', default: '100' },
  },
})
if (values.before === undefined) throw new Error('--before <commit>: the build to compare this tree with')
const flushes = Number(values.flushes)
const WARMUP = Number(values.warmup)
// Each shop unit has fixture rows of its own (a cell's units on fixtures of their own): past them, a
// unit reads rows an earlier one changed (and sets other values). The timed units stay apart.
if (!(flushes > 0 && flushes <= FIXTURE_UNITS))
  throw new Error(`--flushes: 1 to ${FIXTURE_UNITS} (each shop unit its own fixture rows)`)
if (!(WARMUP >= 0)) throw new Error('--warmup: a number of flushes, 0 or more')

const builds = await coreBuilds(values.before)

const env = await startBenchEnv(() => {})
try {
  for (const driver of values.drivers.split(',') as DriverName[]) {
    const sides: (FlushSide & { readonly c: DriverClient })[] = []
    for (const { core } of builds) {
      const c = await openDriver(driver, env.target.url, 1)
      const em = await core.EntityManager.connect(c.client, { pipeline: 'burst', versionColumn: 'version' })
      sides.push({ c, root: em, units: new Units(c.query) })
    }
    try {
      for (const cell of values.cells.split(',')) {
        const m = /^(\d+)x(\d+)$/.exec(cell)
        const work = m ? matrixWork(Number(m[1]), Number(m[2])) : shopWork(cell as ShopCell)
        for (const side of sides) side.units = new Units(side.c.query)
        const times: number[][] = [[], []]
        for (let i = 0; i < WARMUP + flushes; i++) {
          for (const k of i % 2 === 0 ? [0, 1] : [1, 0]) {
            const em = await prepareFlush(sides[k]!, work)
            const t = process.cpuUsage()
            await em.flush()
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
      for (const side of sides) await side.c.close()
    }
  }
} finally {
  await env.stop()
}
