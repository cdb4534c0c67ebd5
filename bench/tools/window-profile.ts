// Where the CPU of a flush goes, pipeflush's against the raw message's: a V8 CPU profile taken while
// the two flush in turn (as pair-cpu.ts runs them, after a warm-up), each sample kept only when it
// falls inside one side's flushes (the clock read around each flush), then self time per function and
// per part (pipeflush's core by folder, the driver, Node, V8's own), µs per flush, side by side.
//
//   npx node --conditions=@pipeflush/source bench/tools/window-profile.ts [--cells graph] [--drivers pg]
//     [--flushes 2000] [--warmup 3000] [--top 40] [--part core/plan]
import { Session } from 'node:inspector/promises'
import { startBenchEnv } from '../src/env/services.ts'
import { selectSeries } from '../src/series/index.ts'
import { type ShopCell, shopWork } from '../src/series/shop-cells.ts'
import type { DriverName, SeriesClient } from '../src/series/types.ts'
import { matrixWork, type Work } from '../src/workload.ts'

interface ProfileNode {
  readonly id: number
  readonly callFrame: { functionName: string; url: string; lineNumber: number }
  readonly children?: readonly number[]
}
interface Profile {
  readonly nodes: readonly ProfileNode[]
  readonly samples: readonly number[]
  readonly timeDeltas: readonly number[]
  readonly startTime: number
}

const args = process.argv.slice(2)
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`)
  return i < 0 ? undefined : args[i + 1]
}
const cells = arg('cells')?.split(',') ?? ['graph']
const drivers = (arg('drivers')?.split(',') ?? ['pg']) as DriverName[]
const flushes = Number(arg('flushes') ?? 2000)
const warmup = Number(arg('warmup') ?? 3000)
const top = Number(arg('top') ?? 40)
/** Only the functions of this part (`core/plan`, `driver:pg`...) in the list of functions. */
const only = arg('part')

function workOf(cell: string): Work {
  const m = /^(\d+)x(\d+)$/.exec(cell)
  return m ? matrixWork(Number(m[1]), Number(m[2])) : shopWork(cell as ShopCell)
}

/** One flush, its window on the profile's clock (µs) pushed to `windows`. */
async function once(client: SeriesClient, work: Work, windows?: [number, number][]): Promise<void> {
  if (work.shop) await client.prepare?.(work)
  const start = process.hrtime.bigint()
  await client.flush(work)
  windows?.push([Number(start / 1000n), Number(process.hrtime.bigint() / 1000n)])
}

/** The part a frame belongs to: pipeflush's folder, the driver, Node, V8. */
function partOf(url: string, name: string): string {
  const core = /packages\/core\/src\/([^/]+)\//.exec(url) ?? /packages\/core\/src\/([^/]+)$/.exec(url)
  if (core) return `core/${core[1]!.replace(/\.ts$/, '')}`
  if (/node_modules\/(pg|pg-protocol|pg-pool|pg-types)\//.test(url)) return 'driver:pg'
  if (/node_modules\/postgres\//.test(url)) return 'driver:postgres.js'
  if (url.startsWith('node:')) return 'node'
  if (url.includes('/bench/')) return 'bench'
  if (url === '') return `v8 ${name}`
  return 'other'
}

/** Self time per function and per part of the samples inside `windows`, µs per flush. */
function attribute(profile: Profile, windows: readonly [number, number][]) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const fn = new Map<string, number>()
  const part = new Map<string, number>()
  let t = profile.startTime
  let w = 0
  let total = 0
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!
    const dt = profile.timeDeltas[i + 1] ?? 0
    while (w < windows.length && windows[w]![1] < t) w++
    if (w >= windows.length || windows[w]![0] > t) continue
    const node = byId.get(profile.samples[i]!)!
    const { functionName, url, lineNumber } = node.callFrame
    if (functionName === '(idle)') continue
    const key = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(packages|node_modules)\//, '')}:${lineNumber + 1}`
    const p = partOf(url, functionName)
    if (only === undefined || p === only) fn.set(key, (fn.get(key) ?? 0) + dt)
    part.set(p, (part.get(p) ?? 0) + dt)
    total += dt
  }
  const per = (m: Map<string, number>) => new Map([...m].map(([k, v]) => [k, v / windows.length]))
  return { fn: per(fn), part: per(part), total: total / windows.length }
}

const env = await startBenchEnv(() => {})
const session = new Session()
session.connect()
try {
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: 25 })
  for (const driver of drivers) {
    const a = await selectSeries(['pipeflush-burst'], [driver])[0]!.open(env.target, { pool: 1 })
    const b = await selectSeries(['raw-simple'], [driver])[0]!.open(env.target, { pool: 1 })
    try {
      for (const cell of cells) {
        const work = workOf(cell)
        for (let i = 0; i < warmup; i++) {
          await once(a, work)
          await once(b, work)
        }
        const wa: [number, number][] = []
        const wb: [number, number][] = []
        await session.post('Profiler.start')
        for (let i = 0; i < flushes; i++) {
          await once(a, work, wa)
          await once(b, work, wb)
        }
        const { profile } = (await session.post('Profiler.stop')) as { profile: Profile }
        const ours = attribute(profile, wa)
        const raw = attribute(profile, wb)
        console.log(
          `\n${cell} ${driver}: sampled CPU per flush, pipeflush ${ours.total.toFixed(1)} µs, raw-simple ${raw.total.toFixed(1)} µs`,
        )
        const parts = new Set([...ours.part.keys(), ...raw.part.keys()])
        for (const p of [...parts].sort((x, y) => (ours.part.get(y) ?? 0) - (ours.part.get(x) ?? 0)))
          console.log(
            `  ${(ours.part.get(p) ?? 0).toFixed(1).padStart(7)} ${(raw.part.get(p) ?? 0).toFixed(1).padStart(7)}  ${p}`,
          )
        console.log('  functions (pipeflush, raw):')
        const names = [...ours.fn.keys()].sort((x, y) => ours.fn.get(y)! - ours.fn.get(x)!).slice(0, top)
        for (const k of names)
          console.log(
            `  ${ours.fn.get(k)!.toFixed(2).padStart(7)} ${(raw.fn.get(k) ?? 0).toFixed(2).padStart(7)}  ${k}`,
          )
      }
    } finally {
      await a.close()
      await b.close()
    }
  }
} finally {
  session.disconnect()
  await env.stop()
}
