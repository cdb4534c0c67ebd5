// Where a flush's client CPU goes, phase by phase, beside the raw driver sending the same message
// (node-postgres): `process.cpuUsage` read at the calls pipeflush makes into the pool, so pipeflush
// itself is measured as users run it, nothing patched in it. The phases:
//   plan     `em.flush()` called -> `pool.connect()` called (finding the changes, drafting the plan);
//   connect  `pool.connect()` called -> its client handed over (the pool's own work);
//   prepare  the client handed over -> `client.query()` called (ids, completing the plan, the
//            session and its guard, the message's text);
//   send     `client.query()` called -> its answer handed over (the driver writing, reading, parsing);
//   settle   the answer handed over -> `em.flush()` resolved (matching what came back, settling the
//            entities, releasing the connection, the report).
// The raw driver's flush (`raw-simple`: `pool.connect()`, the message, `release()`) has connect,
// send and the rest (`settle`: its release). Medians over the flushes (µs), flush by flush in turn
// with the raw one, each cell's units prepared untimed (the matrix cells' new rows made in a fork).
//
//   npx node --conditions=@pipeflush/source bench/tools/flush-phases.ts [--cells 1x1,10x1,graph,mix] [--flushes 900]
//     [--warmup 100]   (untimed flushes first: a few thousand for a long-running server's figures)
import { parseArgs } from 'node:util'
import type { EntityManager } from '@pipeflush/core'
import { startBenchEnv } from '../src/env/services.ts'
import { markPool, phasesOf } from '../src/measure/pool-marks.ts'
import { openDriver } from '../src/series/driver-client.ts'
import { selectSeries } from '../src/series/index.ts'
import { rootFor } from '../src/series/pipeflush.ts'
import { FIXTURE_UNITS, type ShopCell, shopWork } from '../src/series/shop-cells.ts'
import { pipeflushShop } from '../src/series/shop-pipeflush.ts'
import { matrixWork, nextValues } from '../src/workload.ts'

const { values } = parseArgs({
  options: {
    cells: { type: 'string', default: '1x1,10x1,graph,mix' },
    flushes: { type: 'string', default: '900' },
    warmup: { type: 'string', default: '100' },
  },
})
const flushes = Number(values.flushes)
const WARMUP = Number(values.warmup)
// A cell changing fixture rows (update, delete, mix) changes each unit's own; new rows have no limit.
const fixtureCells = values.cells.split(',').filter((c) => c === 'update' || c === 'delete' || c === 'mix')
if (!(flushes > 0 && WARMUP >= 0 && (fixtureCells.length === 0 || flushes + WARMUP <= FIXTURE_UNITS)))
  throw new Error(
    `--flushes: at least 1; with ${fixtureCells.join(', ') || 'a fixture cell'}, --warmup + --flushes at most ${FIXTURE_UNITS} (each unit its own fixture rows)`,
  )

const PHASES = ['plan', 'connect', 'prepare', 'send', 'settle'] as const
const cpu = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}

const median = (a: readonly number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!
const env = await startBenchEnv(() => {})
try {
  const ours = await openDriver('pg', env.target.url, 1)
  const raw = await selectSeries(['raw-simple'], ['pg'])[0]!.open(env.target, { pool: 1 })
  try {
    if (ours.driver !== 'pg') throw new Error('unreachable')
    const marks = markPool(ours.client)
    const shop = pipeflushShop(ours)
    const root = await rootFor(ours.client, 'burst')
    for (const cell of values.cells.split(',')) {
      const m = /^(\d+)x(\d+)$/.exec(cell)
      const work = m ? matrixWork(Number(m[1]), Number(m[2])) : shopWork(cell as ShopCell)
      const prepare = async (): Promise<EntityManager> => {
        if (work.shop) return shop.prepare(work)
        const em = root.fork()
        for (const table of work.tables)
          for (const v of nextValues(work.rowsPerTable)) em.create(table, { v })
        return em
      }
      const phases: number[][] = PHASES.map(() => [])
      const whole: number[] = []
      const rawWhole: number[] = []
      let skipped = 0
      for (let i = 0; i < WARMUP + flushes; i++) {
        const em = await prepare()
        const start = cpu()
        marks.begin()
        await em.flush()
        const end = cpu()
        const flushMarks = marks.end()
        if (work.shop) await raw.prepare?.(work)
        const r0 = cpu()
        await raw.flush(work)
        const r1 = cpu()
        if (i < WARMUP) continue
        // One connect and one query per flush (a burst); a flush that fetched ids first (a query
        // more, when the id pool runs short) is counted apart, not split.
        const split = flushMarks.length === 4 ? phasesOf(start, flushMarks, end) : undefined
        if (split === undefined) {
          skipped++
          continue
        }
        for (let k = 0; k < PHASES.length; k++) phases[k]!.push(split[PHASES[k]!])
        whole.push(end - start)
        rawWhole.push(r1 - r0)
      }
      const split = PHASES.map((p, k) => `${p} ${median(phases[k]!)}`).join(', ')
      console.log(
        `${cell.padEnd(6)} pg  pipeflush ${median(whole)} µs (${split}); raw-simple ${median(rawWhole)} µs${skipped > 0 ? ` (${skipped} flushes fetching ids left out)` : ''}`,
      )
    }
  } finally {
    await ours.close()
    await raw.close()
  }
} finally {
  await env.stop()
}
