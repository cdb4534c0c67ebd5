// Where a flush's heap allocation goes: V8's sampling heap profiler (`HeapProfiler.startSampling`,
// objects later collected kept) over `--flushes` flushes of pipeflush-burst after a warm-up, the
// bytes allocated per flush by each allocating function (self; a native one with its JS caller), the
// heaviest first, and in total.
// flush-allocation.ts counts the total against the raw driver; this says which code allocates it.
//
//   npx node --conditions=@pipeflush/source bench/tools/flush-heap-sample.ts [--cells 1x1,graph]
//     [--drivers pg] [--flushes 3000] [--warmup 2000] [--top 30]
import { Session } from 'node:inspector/promises'
import { parseArgs } from 'node:util'
import { startBenchEnv } from '../src/env/services.ts'
import { selectSeries } from '../src/series/index.ts'
import { type ShopCell, shopWork } from '../src/series/shop-cells.ts'
import type { DriverName } from '../src/series/types.ts'
import { matrixWork, type Work } from '../src/workload.ts'

interface SampleNode {
  readonly callFrame: { functionName: string; url: string; lineNumber: number }
  readonly selfSize: number
  readonly children: readonly SampleNode[]
}

const { values } = parseArgs({
  options: {
    cells: { type: 'string', default: '1x1,graph' },
    drivers: { type: 'string', default: 'pg' },
    flushes: { type: 'string', default: '3000' },
    warmup: { type: 'string', default: '2000' },
    top: { type: 'string', default: '30' },
  },
})
const flushes = Number(values.flushes)
const warmup = Number(values.warmup)
const top = Number(values.top)

function workOf(cell: string): Work {
  const m = /^(\d+)x(\d+)$/.exec(cell)
  return m ? matrixWork(Number(m[1]), Number(m[2])) : shopWork(cell as ShopCell)
}

/** A frame's place, short: the package and file under `packages/` or `node_modules/`, and the line. */
function place(frame: SampleNode['callFrame']): string {
  const url = frame.url.replace(/^file:\/\//, '')
  const m = /(?:packages|node_modules)\/(.+)$/.exec(url)
  const where = m ? m[1] : url || '(native)'
  return `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`
}

const session = new Session()
session.connect()
const env = await startBenchEnv(() => {})
try {
  for (const driver of values.drivers.split(',') as DriverName[]) {
    const ours = await selectSeries(['pipeflush-burst'], [driver])[0]!.open(env.target, { pool: 1 })
    try {
      for (const cell of values.cells.split(',')) {
        const work = workOf(cell)
        for (let i = 0; i < warmup; i++) {
          if (work.shop) await ours.prepare?.(work)
          await ours.flush(work)
        }
        await session.post('HeapProfiler.enable')
        await session.post('HeapProfiler.startSampling', {
          samplingInterval: 256,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        })
        for (let i = 0; i < flushes; i++) {
          if (work.shop) await ours.prepare?.(work)
          await ours.flush(work)
        }
        const { profile } = (await session.post('HeapProfiler.stopSampling')) as {
          profile: { head: SampleNode }
        }
        await session.post('HeapProfiler.disable')
        const bySelf = new Map<string, number>()
        let total = 0
        // A native allocator (Map, Promise, an iterator's next) is named with the code that called it.
        const walk = (node: SampleNode, caller: string) => {
          const here = place(node.callFrame)
          if (node.selfSize > 0) {
            const key = node.callFrame.url === '' ? `${here} <- ${caller}` : here
            bySelf.set(key, (bySelf.get(key) ?? 0) + node.selfSize)
            total += node.selfSize
          }
          for (const child of node.children) walk(child, node.callFrame.url === '' ? caller : here)
        }
        walk(profile.head, '(root)')
        console.log(`${cell} ${driver}: ${(total / flushes / 1024).toFixed(1)} KB sampled per flush`)
        const rows = [...bySelf].sort((a, b) => b[1] - a[1]).slice(0, top)
        for (const [key, bytes] of rows)
          console.log(`  ${(bytes / flushes).toFixed(0).padStart(7)} B  ${key}`)
      }
    } finally {
      await ours.close()
    }
  }
} finally {
  session.disconnect()
  await env.stop()
}
