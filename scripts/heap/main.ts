// Peak heap of a large insert flush: pipeflush on each driver beside postgres.js sending the same
// rows from plain objects (as COPY lines, and as one insert of arrays), each in a process of its own,
// at 100,000 rows with plenty of heap and at 1,000,000 rows under a heap limit (pass or fail). The rows
// are made as an application makes them, each its own text, new Date, float and nullable text
// (`app-rows.ts`). Run from the repository's root:
//
//   npx node --conditions=@pipeflush/source scripts/heap/main.ts [--rows 100000] [--big 1000000]
//
// The peak is the largest heap used seen between the start and the end of the measured work: sampled
// every 2 ms, and before each garbage collection (`--trace-gc`: a synchronous stretch, such as
// planning a million rows, lets no timer run), minus the heap used after a full collection at the
// start. Each figure is the median of `--runs` processes (default 3).
//
// On the project's 2-core machine, shared with other work (docs/benchmark.md, Heap of a large flush):
// 100,000 rows +57 to +58 MiB on each driver against +63 to +65 for the raw COPY and +90 to +93 for
// the raw insert of arrays (0.9x the COPY; the goal is 2x); 1,000,000 rows complete under 512 MiB on
// both drivers (peak +444 to +458 MiB), the raw COPY too (+343 to +361), the raw insert of arrays not
// (+580 to +657 MiB under 1024: `--raw-big-limit 1024`).
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createDatabase, dropDatabase, startPostgres } from '@pipeflush/testkit'
import postgres from 'postgres'
import { BULK_TABLE } from './app-rows.ts'

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    big: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '3' },
    'big-limit': { type: 'string', default: '512' },
    'raw-big-limit': { type: 'string', default: '512' },
  },
})
const child = fileURLToPath(new URL('./flush-child.ts', import.meta.url))
const MiB = 2 ** 20

interface Outcome {
  readonly ok: boolean
  readonly peakMiB?: number
  readonly ms?: number
  readonly reason?: string
}

/** One child process: its peak heap over the measured work, or why it failed (out of heap...). */
function runChild(args: readonly string[], limitMiB: number | undefined): Promise<Outcome> {
  const flags = ['--expose-gc', '--trace-gc', '--conditions=@pipeflush/source']
  if (limitMiB !== undefined) flags.push(`--max-old-space-size=${limitMiB}`)
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [...flags, child, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString()
    })
    p.stderr.on('data', (d: Buffer) => {
      err += d.toString()
    })
    p.on('close', (code) => {
      const lines = out.split('\n')
      const start = lines.findIndex((l) => l.startsWith('start '))
      const end = lines.findIndex((l) => l.startsWith('end '))
      if (code !== 0 || start < 0 || end < 0) {
        const oom = /heap out of memory|Reached heap limit/.test(out + err)
        resolve({ ok: false, reason: oom ? 'out of heap' : `exit ${code}: ${err.trim().split('\n').pop()}` })
        return
      }
      const { base, peak, ms } = JSON.parse(lines[end]!.slice(4)) as {
        base: number
        peak: number
        ms: number
      }
      let gcPeak = 0
      for (const line of lines.slice(start, end)) {
        const m = /: (?:Scavenge|Mark-Compact|Mark-Sweep|Minor Mark-Sweep)[^\d]*([\d.]+) \([\d.]+\) ->/.exec(
          line,
        )
        if (m) gcPeak = Math.max(gcPeak, Number(m[1]) * MiB) // V8 prints MiB
      }
      resolve({ ok: true, peakMiB: (Math.max(peak, gcPeak) - base) / MiB, ms })
    })
  })
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

const server = await startPostgres()
const url = await createDatabase(server.url, 'pipeflush_heap')
const admin = postgres(url, { max: 1, onnotice: () => {} })
const reset = () => admin.unsafe(`drop table if exists bulk; ${BULK_TABLE}`)
const cases = [
  ['pipeflush', 'postgres.js'],
  ['pipeflush', 'pg'],
  ['raw-copy', 'postgres.js'],
  ['raw-insert', 'postgres.js'],
] as const
const labelOf = (kind: string, driver: string) =>
  kind === 'raw-copy'
    ? 'raw postgres.js COPY'
    : kind === 'raw-insert'
      ? 'raw postgres.js insert of arrays'
      : `pipeflush on ${driver}`
try {
  const rows = Number(values.rows)
  console.log(`${rows.toLocaleString('en')} rows x 4 columns, median of ${values.runs} processes:`)
  for (const [kind, driver] of cases) {
    const outcomes: Outcome[] = []
    for (let r = 0; r < Number(values.runs); r++) {
      await reset()
      outcomes.push(await runChild([kind, driver, String(rows), url], undefined))
    }
    const ok = outcomes.filter((o) => o.ok)
    const label = labelOf(kind, driver)
    if (ok.length === 0) console.log(`  ${label}: failed (${outcomes[0]?.reason})`)
    else
      console.log(
        `  ${label}: peak heap +${median(ok.map((o) => o.peakMiB!)).toFixed(0)} MiB, ${median(ok.map((o) => o.ms!)).toFixed(0)} ms`,
      )
  }
  const big = Number(values.big)
  if (big > 0) {
    console.log(`${big.toLocaleString('en')} rows x 4 columns, one process each, under a heap limit:`)
    for (const [kind, driver] of cases) {
      const limit = Number(kind === 'pipeflush' ? values['big-limit'] : values['raw-big-limit'])
      await reset()
      const o = await runChild([kind, driver, String(big), url], limit)
      const label = labelOf(kind, driver)
      console.log(
        `  ${label} with --max-old-space-size=${limit}: ${o.ok ? `completes, peak heap +${o.peakMiB!.toFixed(0)} MiB, ${o.ms!.toFixed(0)} ms` : `fails (${o.reason})`}`,
      )
    }
  }
} finally {
  await admin.end({ timeout: 5 })
  await dropDatabase(server.url, 'pipeflush_heap')
  await server.stop()
}
