// Where a realistic flush's wall time goes: the realistic workload's units (3 cold pools x 40 units, in
// sequence) through the benchmark's proxy at LAT ms, and for each flush the time before its first socket
// write (the flush's own work before sending: planning, reserving a connection), from there to the
// last data received (the network and the server), and after it (reading the answer, settling the
// entities). Prints the medians per series, then per kind of unit, twice (the first pass warms up).
//   npx node --conditions=@pipeflush/source bench/tools/flush-timeline.ts   (LAT=20 by default)
//   SERIES="pipeflush-burst (pg),pg-pipeline" LAT=0 npx node --conditions=@pipeflush/source bench/tools/flush-timeline.ts
import net from 'node:net'
import { startBenchEnv } from '../src/env/services.ts'
import { generateUnits } from '../src/realistic/generate.ts'
import { pipeflushRealistic2 } from '../src/realistic/pipeflush-unit.ts'
import { rawRealistic2 } from '../src/realistic/raw-unit.ts'

const LATENCY = Number(process.env['LAT'] ?? 20)
const SERIES = (
  process.env['SERIES'] ?? 'pipeflush-burst (postgres.js),pipeflush-burst (pg),pg-pipeline'
).split(',')

/** Timestamps of the current flush, taken on every socket of the process. */
const mark = { armed: false, firstWrite: 0, lastData: 0 }
const write = net.Socket.prototype.write
net.Socket.prototype.write = function (this: net.Socket, ...args: unknown[]) {
  if (mark.armed && mark.firstWrite === 0) mark.firstWrite = performance.now()
  return (write as (...a: unknown[]) => boolean).apply(this, args)
} as typeof write
const emit = net.Socket.prototype.emit
net.Socket.prototype.emit = function (this: net.Socket, event: string | symbol, ...args: unknown[]) {
  if (mark.armed && event === 'data') mark.lastData = performance.now()
  return (emit as (event: string | symbol, ...a: unknown[]) => boolean).call(this, event, ...args)
} as typeof emit

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN
const ms = (x: number) => x.toFixed(2).padStart(6)

type Parts = { before: number[]; wire: number[]; after: number[]; wall: number[] }
const parts = (): Parts => ({ before: [], wire: [], after: [], wall: [] })
const line = (name: string, p: Parts) =>
  `${name.padEnd(32)} n ${String(p.wall.length).padStart(3)}  wall ${ms(median(p.wall))}  before ${ms(median(p.before))}  wire+server ${ms(median(p.wire))}  after ${ms(median(p.after))}`

const env = await startBenchEnv(() => {})
try {
  await env.proxy.setLatency(LATENCY)
  const chosen = [...pipeflushRealistic2, ...rawRealistic2].filter((s) => SERIES.includes(s.id))
  if (chosen.length === 0) throw new Error(`no series among ${SERIES.join(', ')}`)
  console.log(`latency ${LATENCY} ms; medians in ms`)
  for (const pass of ['warm-up', 'measured'])
    for (const series of chosen) {
      const all = parts()
      const byKind = new Map<string, Parts>()
      for (let run = 0; run < 3; run++) {
        await env.resetShop()
        const runner = await series.open(env.target, 10)
        try {
          for (const unit of generateUnits(1 + run, 40)) {
            const flush = await runner.prepare(unit)
            Object.assign(mark, { armed: true, firstWrite: 0, lastData: 0 })
            const t0 = performance.now()
            await flush()
            const t1 = performance.now()
            mark.armed = false
            const kind = byKind.get(unit.kind) ?? parts()
            byKind.set(unit.kind, kind)
            for (const p of [all, kind]) {
              p.before.push(mark.firstWrite - t0)
              p.wire.push(mark.lastData - mark.firstWrite)
              p.after.push(t1 - mark.lastData)
              p.wall.push(t1 - t0)
            }
          }
        } finally {
          await runner.close()
        }
      }
      if (pass === 'warm-up') continue
      console.log(line(series.id, all))
      for (const [kind, p] of byKind) console.log(line(`  ${kind}`, p))
    }
} finally {
  await env.stop()
}
