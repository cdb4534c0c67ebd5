// Client CPU per flush of pipeflush-burst and the raw driver sending the same statements as one
// simple-protocol message (raw-simple), flush by flush in turn on one driver, so that a drift of the
// machine hits both alike: p50 of each and their ratio, per cell. A quick A/B of a change to the
// flush path; the CPU scenario's table is the figure of record.
//
//   npx node --conditions=@pipeflush/source bench/tools/pair-cpu.ts [--cells 10x1,graph] [--drivers pg]
//     [--flushes 2000] [--warmup 100] [--profile /tmp/p] [--preplan] [--ours-only | --raw-only] [--threads]
//
// `--warmup`: untimed flushes of each per cell first (a few thousand: what a long-running server
// runs, V8 done compiling a flush's functions; see warmup-curve.ts).
// `--preplan`: a diagnostic, not a measurement of pipeflush as used: each shop unit is planned once
// (`em.plan()`, untimed) right before its flush, so the flush finds its planner's code and data in
// the CPU's caches; what that takes off the flush is what the flush pays for finding them cold.
// `--ours-only`: the raw driver's flushes left out of the timed loop (a profile of pipeflush's alone,
// without the planning the raw side's statements are taken from); no ratio then. `--raw-only`: the
// raw driver's alone (its statements still planned by pipeflush, untimed): what a whole-process
// measurement (strace, perf) of one side is compared with.
// `--threads`: the run time of each of the process's threads over the timed flushes (Linux's
// `/proc/self/task/*/schedstat`, nanoseconds), per flush, by thread name: what `process.cpuUsage`
// sums, told apart (the main thread, V8's workers, libuv's). With one side only, that side's.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector/promises'
import { join } from 'node:path'
import { startBenchEnv } from '../src/env/services.ts'
import { selectSeries } from '../src/series/index.ts'
import { SHOP_CELLS, type ShopCell, shopWork } from '../src/series/shop-cells.ts'
import type { DriverName, SeriesClient } from '../src/series/types.ts'
import { matrixWork, type Work } from '../src/workload.ts'

const args = process.argv.slice(2)
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`)
  return i < 0 ? undefined : args[i + 1]
}
const cells = arg('cells')?.split(',') ?? ['10x1', '5x10', ...SHOP_CELLS]
const drivers = (arg('drivers')?.split(',') ?? ['postgres.js', 'pg']) as DriverName[]
const flushes = Number(arg('flushes') ?? 2000)
const warmup = Number(arg('warmup') ?? 100)
const profileDir = arg('profile')
const preplan = args.includes('--preplan')
const oursOnly = args.includes('--ours-only')
const rawOnly = args.includes('--raw-only')
const threads = args.includes('--threads')
if (oursOnly && rawOnly) throw new Error('--ours-only and --raw-only: one side at most')

function workOf(cell: string): Work {
  const m = /^(\d+)x(\d+)$/.exec(cell)
  return m ? matrixWork(Number(m[1]), Number(m[2])) : shopWork(cell as ShopCell)
}

/** Client CPU of one flush (its unit prepared untimed first), µs. */
async function once(client: SeriesClient, work: Work, system?: number[]): Promise<number> {
  if (work.shop) await client.prepare?.(work)
  if (preplan) client.planPrepared?.()
  const before = process.cpuUsage()
  await client.flush(work)
  const d = process.cpuUsage(before)
  system?.push(d.system)
  return d.user + d.system
}

/** The run time of each thread of this process so far (ns), by thread id, with its name. */
async function threadRunTimes(): Promise<Map<string, { name: string; ns: number }>> {
  const out = new Map<string, { name: string; ns: number }>()
  for (const tid of await readdir('/proc/self/task')) {
    try {
      const [name, stat] = await Promise.all([
        readFile(`/proc/self/task/${tid}/comm`, 'utf8'),
        readFile(`/proc/self/task/${tid}/schedstat`, 'utf8'),
      ])
      out.set(tid, { name: name.trim(), ns: Number(stat.split(' ')[0]) })
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return out
}

/** Each thread name's run time over the timed flushes, µs per flush (threads of one name summed). */
function threadLine(
  cell: string,
  driver: string,
  before: Map<string, { name: string; ns: number }>,
  after: Map<string, { name: string; ns: number }>,
): string {
  const byName = new Map<string, number>()
  for (const [tid, { name, ns }] of after) {
    const spent = ns - (before.get(tid)?.ns ?? 0)
    if (spent > 0) byName.set(name, (byName.get(name) ?? 0) + spent)
  }
  const per = (ns: number) => (ns / 1000 / flushes).toFixed(1)
  const parts = [...byName].sort((x, y) => y[1] - x[1]).map(([name, ns]) => `${name} ${per(ns)}`)
  const total = [...byName.values()].reduce((x, y) => x + y, 0)
  return `${cell.padEnd(6)} ${driver.padEnd(12)} threads, µs a flush (both sides when both run): ${parts.join(', ')}; total ${per(total)}`
}

const env = await startBenchEnv(() => {})
const session = profileDir ? new Session() : undefined
try {
  if (session) {
    session.connect()
    await session.post('Profiler.enable')
    await session.post('Profiler.setSamplingInterval', { interval: 50 })
  }
  for (const driver of drivers) {
    const [ours, raw] = [
      selectSeries(['pipeflush-burst'], [driver])[0]!,
      selectSeries(['raw-simple'], [driver])[0]!,
    ]
    const a = await ours.open(env.target, { pool: 1 })
    const b = await raw.open(env.target, { pool: 1 })
    try {
      for (const cell of cells) {
        const work = workOf(cell)
        for (let i = 0; i < warmup; i++) {
          await once(a, work)
          await once(b, work)
        }
        const ta: number[] = []
        const tb: number[] = []
        const sa: number[] = []
        const sb: number[] = []
        if (session) await session.post('Profiler.start')
        const runBefore = threads ? await threadRunTimes() : undefined
        // Where the timed flushes start in V8's traces (`--trace-opt`, `--trace-deopt`), when asked.
        if (threads) console.log(`-- ${cell} ${driver}: timed flushes start`)
        for (let i = 0; i < flushes; i++) {
          if (!rawOnly) ta.push(await once(a, work, sa))
          if (!oursOnly) tb.push(await once(b, work, sb))
        }
        if (runBefore !== undefined) console.log(threadLine(cell, driver, runBefore, await threadRunTimes()))
        if (session) {
          const { profile } = await session.post('Profiler.stop')
          await mkdir(profileDir!, { recursive: true })
          await writeFile(join(profileDir!, `pair-${driver}-${cell}.cpuprofile`), JSON.stringify(profile))
        }
        const mean = (t: number[]) => Math.round(t.reduce((x, y) => x + y, 0) / t.length)
        const p50 = (t: number[]) => [...t].sort((x, y) => x - y)[Math.floor(t.length / 2)]!
        if (oursOnly || rawOnly) {
          const [who, t] = oursOnly ? (['pipeflush', ta] as const) : (['raw-simple', tb] as const)
          console.log(`${cell.padEnd(6)} ${driver.padEnd(12)} ${who} p50 ${p50(t)} µs`)
          continue
        }
        console.log(
          `${cell.padEnd(6)} ${driver.padEnd(12)} pipeflush p50 ${p50(ta)} µs  raw-simple p50 ${p50(tb)} µs  ratio ${(p50(ta) / p50(tb)).toFixed(2)}x  (system mean ${mean(sa)} / ${mean(sb)} µs)`,
        )
      }
    } finally {
      await a.close()
      await b.close()
    }
  }
} finally {
  session?.disconnect()
  await env.stop()
}
