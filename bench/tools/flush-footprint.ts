// The functions of pipeflush's core that one flush runs, counted exactly (V8's precise coverage with
// call counts, `Profiler.takePreciseCoverage`): per cell, `--flushes` flushes of pipeflush-burst after
// a warm-up, each function's calls per flush, the heaviest first, and how many distinct functions a
// flush runs. On this machine a flush's client CPU follows the code it runs more than the work it
// does: a function called once per flush costs a few µs however little it does (its code cold after
// the network wait), so the count of distinct functions is the figure to hold a flush path to.
//
//   npx node --conditions=@pipeflush/source bench/tools/flush-footprint.ts [--cells 1x1,graph]
//     [--drivers pg] [--flushes 200] [--list]
import { Session } from 'node:inspector/promises'
import { parseArgs } from 'node:util'
import { startBenchEnv } from '../src/env/services.ts'
import { footprint, take } from '../src/measure/coverage.ts'
import { selectSeries } from '../src/series/index.ts'
import { type ShopCell, shopWork } from '../src/series/shop-cells.ts'
import type { DriverName } from '../src/series/types.ts'
import { matrixWork } from '../src/workload.ts'

const { values } = parseArgs({
  options: {
    cells: { type: 'string', default: '1x1,10x1,graph,mix' },
    drivers: { type: 'string', default: 'pg' },
    flushes: { type: 'string', default: '200' },
    list: { type: 'boolean', default: false },
  },
})
const flushes = Number(values.flushes)

const env = await startBenchEnv(() => {})
const session = new Session()
session.connect()
try {
  await session.post('Profiler.enable')
  for (const driver of values.drivers.split(',') as DriverName[]) {
    const client = await selectSeries(['pipeflush-burst'], [driver])[0]!.open(env.target, { pool: 1 })
    try {
      for (const cell of values.cells.split(',')) {
        const m = /^(\d+)x(\d+)$/.exec(cell)
        const work = m ? matrixWork(Number(m[1]), Number(m[2])) : shopWork(cell as ShopCell)
        for (let i = 0; i < 50; i++) {
          if (work.shop) await client.prepare?.(work)
          await client.flush(work)
        }
        // Counts start at each take: the preparing of each unit is left out by taking before each flush.
        await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false })
        const calls = new Map<string, number>()
        for (let i = 0; i < flushes; i++) {
          if (work.shop) await client.prepare?.(work)
          await take(session)
          await client.flush(work)
          for (const [name, count] of await take(session)) calls.set(name, (calls.get(name) ?? 0) + count)
        }
        await session.post('Profiler.stopPreciseCoverage')
        const { every, some, calls: perFlush, list } = footprint(calls, flushes)
        console.log(
          `${cell.padEnd(6)} ${driver.padEnd(11)} ${every} functions run by every flush (${some} by some), ${perFlush.toFixed(0)} calls a flush`,
        )
        if (values.list) for (const [name, n] of list) console.log(`  ${n.toFixed(2).padStart(8)}  ${name}`)
      }
    } finally {
      await client.close()
    }
  }
} finally {
  session.disconnect()
  await env.stop()
}
