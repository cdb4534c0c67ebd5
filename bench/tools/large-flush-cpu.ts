// Client CPU of one large insert flush: `rows` new rows of the heap script's table, each row its own
// text, Date, float and nullable text (`scripts/heap/app-rows.ts`), created with `em.create` and
// written by `em.flush()` (sent as COPY), per driver, on one warm connection; beside it postgres.js's
// own COPY of the same rows from plain objects. Each figure is the median of `--samples` flushes of
// `process.cpuUsage` (user + system) around the creation, the flush, and both, in ms. CPU time, not
// wall time: the server's work is not in it, and a busy machine moves it less (still ~10%).
//
//   npx node --conditions=@pipeflush/source bench/tools/large-flush-cpu.ts [--rows 100000]
//     [--samples 7] [--drivers postgres.js,pg]
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { parseArgs } from 'node:util'
import { EntityManager } from '@pipeflush/core'
import { createDatabase, dropDatabase, startPostgres } from '@pipeflush/testkit'
import pg from 'pg'
import postgres from 'postgres'
import { type AppRow, appRow, BULK_TABLE } from '../../scripts/heap/app-rows.ts'
import { toolPool } from '../src/series/tool-pool.ts'

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '100000' },
    samples: { type: 'string', default: '7' },
    drivers: { type: 'string', default: 'postgres.js,pg' },
  },
})
const rows = Number(values.rows)
const samples = Number(values.samples)

/** CPU ms of `process.cpuUsage` since `from`. */
function cpuMs(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from)
  return (d.user + d.system) / 1000
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

/** Lines of COPY's text format for the rows `from` to `to` (nothing in them needs escaping). */
function copyLines(made: readonly AppRow[], from: number, to: number): string {
  let out = ''
  for (let i = from; i < to; i++) {
    const r = made[i]!
    out += `${r.name}\t${r.at.toISOString()}\t${r.score}\t${r.note ?? '\\N'}\n`
  }
  return out
}

function report(label: string, create: number[], flush: number[], both: number[]): void {
  const ms = (xs: number[]) => median(xs).toFixed(0).padStart(5)
  console.log(`  ${label.padEnd(28)} create ${ms(create)}  flush ${ms(flush)}  both ${ms(both)} ms`)
}

const server = await startPostgres()
const url = await createDatabase(server.url, 'pipeflush_large_cpu')
const admin = postgres(url, { max: 1, onnotice: () => {} })
try {
  await admin.unsafe(`drop table if exists bulk; ${BULK_TABLE}`)
  console.log(`${rows.toLocaleString('en')} rows, client CPU, median of ${samples} flushes:`)
  for (const driver of values.drivers.split(',')) {
    const client =
      driver === 'pg'
        ? toolPool({ connectionString: url, max: 1, pipeline: true } as pg.PoolConfig)
        : postgres(url, { max: 1, onnotice: () => {} })
    try {
      const root = await EntityManager.connect(client, { flushTimeoutMs: 600_000, idBlockSize: rows })
      const create: number[] = []
      const flush: number[] = []
      const both: number[] = []
      for (let s = -1; s < samples; s++) {
        await admin.unsafe('truncate bulk')
        const em = root.fork()
        const started = process.cpuUsage()
        for (let i = 0; i < rows; i++) em.create('bulk', appRow(i))
        const created = cpuMs(started)
        const flushing = process.cpuUsage()
        await em.flush()
        if (s < 0) continue // the first one warms up
        flush.push(cpuMs(flushing))
        create.push(created)
        both.push(cpuMs(started))
      }
      report(`pipeflush on ${driver}`, create, flush, both)
    } finally {
      await (client instanceof pg.Pool ? client.end() : (client as postgres.Sql).end({ timeout: 5 }))
    }
  }
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  try {
    const create: number[] = []
    const flush: number[] = []
    const both: number[] = []
    for (let s = -1; s < samples; s++) {
      await admin.unsafe('truncate bulk')
      const started = process.cpuUsage()
      const made = Array.from({ length: rows }, (_, i) => appRow(i))
      const created = cpuMs(started)
      const flushing = process.cpuUsage()
      const writable = await sql`copy bulk (name, at, score, note) from stdin`.writable()
      const chunks = function* () {
        for (let i = 0; i < made.length; i += 2_000)
          yield copyLines(made, i, Math.min(made.length, i + 2_000))
      }
      await pipeline(Readable.from(chunks()), writable)
      if (s < 0) continue
      flush.push(cpuMs(flushing))
      create.push(created)
      both.push(cpuMs(started))
    }
    report('raw postgres.js COPY', create, flush, both)
  } finally {
    await sql.end({ timeout: 5 })
  }
} finally {
  await admin.end({ timeout: 5 })
  await dropDatabase(server.url, 'pipeflush_large_cpu')
  await server.stop()
}
