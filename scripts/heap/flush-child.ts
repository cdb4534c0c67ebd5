// One measured flush in a process of its own (started by `main.ts`): `rows` new rows of 4 columns
// besides the key its sequence fills (each row its own text, Date, float and nullable text, as an
// application makes them: see `app-rows.ts`) written by pipeflush on a driver, or by postgres.js from
// the same plain objects: as COPY FROM STDIN, or as one insert of arrays (the raw driver sending the
// same rows). Prints `start` when measuring begins and `end {json}` when the rows are stored; `main.ts`
// reads the heap figures of the garbage collections printed in between (`--trace-gc`).
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { EntityManager } from '@pipeflush/core'
import pg from 'pg'
import postgres from 'postgres'
import { type AppRow, appRow } from './app-rows.ts'

const [kind, driver, rowsText, url] = process.argv.slice(2)
const rows = Number(rowsText)
if (!url || !(rows > 0))
  throw new Error('usage: flush-child.ts pipeflush|raw-copy|raw-insert pg|postgres.js <rows> <url>')
const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error('run with --expose-gc')

/** The heap used, sampled every 2 ms (a synchronous stretch is seen by the GC trace instead). */
function sampler() {
  let peak = process.memoryUsage().heapUsed
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed)
  }, 2)
  return () => {
    clearInterval(timer)
    return Math.max(peak, process.memoryUsage().heapUsed)
  }
}

/** Measures `work` from a collected heap: the base heap, the peak sampled, the time. */
async function measured(work: () => Promise<void>): Promise<void> {
  gc!()
  const base = process.memoryUsage().heapUsed
  console.log(`start ${base}`)
  const stop = sampler()
  const started = performance.now()
  await work()
  const ms = performance.now() - started
  const peak = stop()
  console.log(`end ${JSON.stringify({ base, peak, ms })}`)
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

if (kind === 'raw-copy' || kind === 'raw-insert') {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  await sql`select 1`
  await measured(async () => {
    const made = Array.from({ length: rows }, (_, i) => appRow(i))
    if (kind === 'raw-insert') {
      // One statement, the rows as four text[] parameters (postgres.js serializes them).
      const name = made.map((r) => r.name)
      const at = made.map((r) => r.at.toISOString())
      const score = made.map((r) => String(r.score))
      const note = made.map((r) => r.note)
      await sql`insert into bulk (name, at, score, note) select name, at::timestamptz, score::float8, note
        from unnest(${name}::text[], ${at}::text[], ${score}::text[], ${note}::text[]) as t(name, at, score, note)`
      return
    }
    const writable = await sql`copy bulk (name, at, score, note) from stdin`.writable()
    const chunks = function* () {
      for (let i = 0; i < made.length; i += 2_000) yield copyLines(made, i, Math.min(made.length, i + 2_000))
    }
    await pipeline(Readable.from(chunks()), writable)
  })
  await sql.end({ timeout: 5 })
} else {
  const client =
    driver === 'pg'
      ? new pg.Pool({ connectionString: url, max: 1, pipeline: true } as pg.PoolConfig)
      : postgres(url, { max: 1, onnotice: () => {} })
  const root = await EntityManager.connect(client, { flushTimeoutMs: 600_000, idBlockSize: 100 })
  const warm = root.fork()
  warm.create('bulk', appRow(0))
  await warm.flush()
  await measured(async () => {
    const em = root.fork()
    for (let i = 0; i < rows; i++) em.create('bulk', appRow(i))
    const report = await em.flush()
    if (report.inserted !== rows) throw new Error(`inserted ${report.inserted}`)
  })
  await (client instanceof pg.Pool ? client.end() : (client as postgres.Sql).end({ timeout: 5 }))
}
