// Where a flush's client CPU goes, measured inside the flush as users run it: the wall time of each
// synchronous segment of pipeflush's own work (no I/O inside one, so its wall time is CPU time), read
// with `performance.now()` at marks that `flush-segments.patch` adds to the core's source, beside the
// flush's whole client CPU (`process.cpuUsage`) and the raw driver sending the same message
// (`raw-simple`), flush by flush in turn. What no segment holds (the rest) is the asynchronous glue:
// reserving the connection, the driver reading and parsing the answer, giving the connection back,
// promise and timer work. Means per flush (µs) over the flushes that drew their ids from the pool
// (a flush fetching a block of ids first is left out); GC pauses count where they land.
//
//   git apply bench/tools/flush-segments.patch
//   npx node --conditions=@pipeflush/source bench/tools/flush-segments.ts [--cells 1x1,graph,mix] [--drivers pg]
//     [--flushes 900] [--warmup 1500]
//   git apply -R bench/tools/flush-segments.patch
//
// Without the patch applied it stops at once: no segment would be measured.
import { parseArgs } from 'node:util'
import { startBenchEnv } from '../src/env/services.ts'
import { selectSeries } from '../src/series/index.ts'
import { FIXTURE_UNITS, type ShopCell, shopWork } from '../src/series/shop-cells.ts'
import type { DriverName, SeriesClient } from '../src/series/types.ts'
import { matrixWork, type Work } from '../src/workload.ts'

const { values } = parseArgs({
  options: {
    cells: { type: 'string', default: '1x1,graph,mix' },
    drivers: { type: 'string', default: 'pg,postgres.js' },
    flushes: { type: 'string', default: '900' },
    warmup: { type: 'string', default: '1500' },
  },
})
const flushes = Number(values.flushes)
const warmup = Number(values.warmup)
if (!(flushes > 0)) throw new Error('--flushes: at least 1')

type Segments = Map<string, number>
const holder = globalThis as { __pipeflushSegments?: Segments }

function workOf(cell: string): Work {
  const m = /^(\d+)x(\d+)$/.exec(cell)
  return m ? matrixWork(Number(m[1]), Number(m[2])) : shopWork(cell as ShopCell)
}

/** Client CPU of one flush (its unit prepared untimed first), µs; `segments` filled when given. */
async function once(client: SeriesClient, work: Work, segments?: Segments): Promise<number> {
  if (work.shop) await client.prepare?.(work)
  holder.__pipeflushSegments = segments
  const before = process.cpuUsage()
  await client.flush(work)
  const d = process.cpuUsage(before)
  holder.__pipeflushSegments = undefined
  return d.user + d.system
}

const p50 = (t: number[]) => [...t].sort((x, y) => x - y)[Math.floor(t.length / 2)]!
const mean = (t: number[]) => t.reduce((x, y) => x + y, 0) / t.length

const env = await startBenchEnv(() => {})
try {
  for (const driver of values.drivers.split(',') as DriverName[]) {
    const ours = await selectSeries(['pipeflush-burst'], [driver])[0]!.open(env.target, { pool: 1 })
    const raw = await selectSeries(['raw-simple'], [driver])[0]!.open(env.target, { pool: 1 })
    try {
      for (const cell of values.cells.split(',')) {
        const work = workOf(cell)
        if (work.shop && warmup + flushes > FIXTURE_UNITS * 3)
          console.log(`(${cell}: units past ${FIXTURE_UNITS} reuse fixture rows earlier units changed)`)
        for (let i = 0; i < warmup; i++) {
          await once(ours, work)
          await once(raw, work)
        }
        const cpu: number[] = []
        const rawCpu: number[] = []
        const totals: Segments = new Map()
        for (let i = 0; i < flushes; i++) {
          const segments: Segments = new Map()
          const us = await once(ours, work, segments)
          rawCpu.push(await once(raw, work))
          if (segments.size === 0)
            throw new Error('no segment measured: apply bench/tools/flush-segments.patch first')
          if (ours.lastReport?.()?.idFetch === true) continue
          cpu.push(us)
          for (const [name, ms] of segments) totals.set(name, (totals.get(name) ?? 0) + ms * 1000)
        }
        const counted = cpu.length
        const inSegments = [...totals.values()].reduce((x, y) => x + y, 0) / counted
        console.log(
          `${cell} ${driver}: pipeflush p50 ${p50(cpu)} µs, mean ${mean(cpu).toFixed(0)}; raw-simple p50 ${p50(rawCpu)}, mean ${mean(rawCpu).toFixed(0)} (${counted} flushes)`,
        )
        for (const [name, us] of totals) console.log(`  ${(us / counted).toFixed(1).padStart(7)}  ${name}`)
        console.log(`  ${inSegments.toFixed(1).padStart(7)}  all segments`)
        console.log(
          `  ${(mean(cpu) - inSegments).toFixed(1).padStart(7)}  the rest (mean CPU minus the segments)`,
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
