// Run as its own Node process under Node's defaults (no handler installed): a stray rejection or an
// error thrown from a driver's timer ends it with a non-zero exit code.
//
// A pool of one connection: a load is in flight (its answer held back by 150 ms of latency) and a
// flush waits for the connection, when the socket fails with ECONNRESET. A driver may reject the load
// at the socket's 'error' and close the socket only a macrotask later: the connection must not be
// handed to the waiting flush in between (it would write on a connection about to close, its query
// left in the dead connection's queue, answered after the reconnect by what the next query gets).
// Then 30 loads of distinct rows, each must get its own row; the flush committed iff the database
// holds it. Prints one JSON line.
import type { Socket } from 'node:net'
import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { connectToxiproxy, createRoundTripCounter, type DriverName, openClient } from '@pipeflush/testkit'
import postgres from 'postgres'

export interface ErrorBeforeCloseConfig {
  readonly driver: DriverName
  readonly adminUrl: string
  readonly toxiproxyUrl: string
  readonly postgresHost: string
  readonly postgresPort: number
  readonly name: string
}

export interface ErrorBeforeCloseResult {
  readonly load: string
  readonly flush: string
  readonly problems: readonly string[]
}

const cfg = JSON.parse(process.argv[2] ?? '{}') as ErrorBeforeCloseConfig
const admin = postgres(cfg.adminUrl, { max: 1, onnotice: () => {} })
const item = `${cfg.name}_item`
await admin.unsafe(`
  create table "${item}" (id int primary key, label text not null);
  insert into "${item}" select g, 'item ' || g from generate_series(1, 40) g;
  create table "${cfg.name}_log" (flush_id uuid primary key, committed boolean not null, at timestamptz not null default now());
`)
const toxiproxy = await connectToxiproxy(cfg.toxiproxyUrl)
const proxy = await toxiproxy.proxy(cfg.name, { host: cfg.postgresHost, port: cfg.postgresPort })
const sockets = new Set<Socket>()
const counter = createRoundTripCounter()
const tracked = {
  ...counter,
  socket: async (o: Parameters<typeof counter.socket>[0]) => {
    const s = await counter.socket(o)
    sockets.add(s)
    s.once('close', () => sockets.delete(s))
    return s
  },
  stream: () => {
    const s = counter.stream()
    sockets.add(s)
    s.once('close', () => sockets.delete(s))
    return s
  },
}
const client = openClient(cfg.driver, proxy.rewriteUrl(cfg.adminUrl), tracked, { max: 1 })
const root = await EntityManager.connect(client.client, { flushLog: `${cfg.name}_log`, flushTimeoutMs: 3000 })
const problems: string[] = []
await root.fork().load(item, 1) // the connection is open and warm

await proxy.setLatency(150)
const em = root.fork()
em.create(item, { id: 100, label: 'new' })
const loading = root.fork().load(item, 2)
// Reads of a tick are sent in the next macrotask: the load is on the connection (its answer held
// back by the latency) before the flush asks for it.
await new Promise((resolve) => setTimeout(resolve, 20))
const flushing = em.flush() // waits for the pool's one connection
await new Promise((resolve) => setTimeout(resolve, 30))
for (const s of sockets) s.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))
let unknownFlush: string | undefined
const outcome = async (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => {
      if (!isPipeflushError(e)) return `not a PipeflushError: ${String(e)}`
      if (e.code === 'COMMIT_OUTCOME_UNKNOWN') unknownFlush = e.flushId
      return e.code
    },
  )
const [load, flushed] = await Promise.all([outcome(loading), outcome(flushing)])
await proxy.setLatency(0)

// Whether the flush committed, by its answer (or the flush log's), must be what the database holds.
const said = unknownFlush === undefined ? flushed === 'ok' : await root.wasCommitted(unknownFlush)
const flush = unknownFlush === undefined ? flushed : `${flushed} (committed: ${said})`
const [held] = await admin.unsafe<{ n: number }[]>(`select count(*)::int as n from "${item}" where id = 100`)
if (said !== (held?.n === 1))
  problems.push(`the flush answered ${flush}, the database holds ${held?.n} rows of it`)
if (!['ok', 'CONNECTION_LOST', 'COMMIT_OUTCOME_UNKNOWN', 'FLUSH_TIMEOUT'].includes(flushed))
  problems.push(`the flush failed with ${flushed}`)
if (!['ok', 'CONNECTION_LOST', 'COMMIT_OUTCOME_UNKNOWN', 'QUERY_TIMEOUT', 'FLUSH_TIMEOUT'].includes(load))
  problems.push(`the load failed with ${load}`)

// Every later read gets its own answer.
for (let id = 3; id <= 32; id++) {
  try {
    const row = await root.fork().load(item, id)
    if (row['id'] !== id) problems.push(`load(${id}) answered the row of ${String(row['id'])}`)
  } catch (e) {
    problems.push(`load(${id}) failed: ${String(e)}`)
  }
}
await client.end()
await proxy.remove().catch(() => {})
await admin.end({ timeout: 1 })
const result: ErrorBeforeCloseResult = { load, flush, problems }
process.stdout.write(`${JSON.stringify(result)}\n`)
if (problems.length > 0) process.exitCode = 1
