// One measured flush in a process of its own (started by `main.ts`): `rows` new rows of 4 columns
// (a key its sequence fills, an int, a text, a timestamptz) written by pipeflush on a driver, or by
// postgres.js's COPY FROM STDIN from plain objects (the raw driver sending the same rows). Prints
// `start` when measuring begins and `end {json}` when the rows are stored; `main.ts` reads the heap
// figures of the garbage collections printed in between (`--trace-gc`).
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { EntityManager } from '@pipeflush/core'
import pg from 'pg'
import postgres from 'postgres'

const [kind, driver, rowsText, url] = process.argv.slice(2)
const rows = Number(rowsText)
if (!url || !(rows > 0))
  throw new Error('usage: flush-child.ts pipeflush|raw-copy|raw-insert pg|postgres.js <rows> <url>')
const at = new Date('2026-01-01T00:00:00Z')
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
function copyLines(made: readonly { a: number; b: string; c: Date }[], from: number, to: number): string {
  let out = ''
  for (let i = from; i < to; i++) {
    const r = made[i]!
    out += `${r.a}\t${r.b}\t${r.c.toISOString()}\n`
  }
  return out
}

if (kind === 'raw-copy' || kind === 'raw-insert') {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  await sql`select 1`
  await measured(async () => {
    const made = Array.from({ length: rows }, (_, i) => ({ a: i, b: `row ${i} of the bulk load`, c: at }))
    if (kind === 'raw-insert') {
      // One statement, the rows as three text[] parameters (postgres.js serializes them).
      const a = made.map((r) => String(r.a))
      const b = made.map((r) => r.b)
      const c = made.map((r) => r.c.toISOString())
      await sql`insert into bulk (a, b, c) select a::int, b, c::timestamptz
        from unnest(${a}::text[], ${b}::text[], ${c}::text[]) as t(a, b, c)`
      return
    }
    const writable = await sql`copy bulk (a, b, c) from stdin`.writable()
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
  warm.create('bulk', { a: 0, b: 'warm', c: at })
  await warm.flush()
  await measured(async () => {
    const em = root.fork()
    for (let i = 0; i < rows; i++) em.create('bulk', { a: i, b: `row ${i} of the bulk load`, c: at })
    const report = await em.flush()
    if (report.inserted !== rows) throw new Error(`inserted ${report.inserted}`)
  })
  await (client instanceof pg.Pool ? client.end() : (client as postgres.Sql).end({ timeout: 5 }))
}
