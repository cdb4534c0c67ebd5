// Run as its own Node process under Node's defaults (no handler installed): a stray rejection or an
// error thrown from a driver's timer ends it with a non-zero exit code.
//
// The server ends the pool's backends (pg_terminate_backend: a restart, a failover, an admin) while
// the pool is in use; once the server is fine again, every read and flush must succeed. On postgres.js
// a connection whose socket had ended was given back to the pool by a reservation that did not know
// its connection (postgres.js tells it only when a write goes through at once: not for a query the
// connection guard rejected, nor one of 1 KiB or more the ended socket refused), and stayed among the
// open connections for good, every query on it rejected with "write CONNECTION_CLOSED".
//
// 1. Deterministic: each connection of the pool is held by a session that has sent nothing yet while
//    its backend is ended; the session's first query then fails, and the session is given back. Once
//    on the cold pool (pipeflush never wrote on those connections: postgres.js would have written the
//    query on no socket, an error thrown from its write timer that ended the process), once after the
//    pool served reads and flushes.
// 2. A race, as an outside probe met it (only with `race`): reads (whose text is over 1 KiB) and
//    flushes run, 40 at a time, while the pool's backends are ended 6 times.
// After each, every read and flush (rounds of twice the pool's size, concurrently) must succeed.
// Prints one JSON line.
import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { createRoundTripCounter, type DriverName, openClient } from '@pipeflush/testkit'
import postgres from 'postgres'
import { driverFor } from '../../../../src/drivers/driver-for.ts'

export interface TerminatedBackendsConfig {
  readonly driver: DriverName
  readonly adminUrl: string
  readonly max: number
  readonly name: string
  /** Run the race (2) after the held connections (1). */
  readonly race: boolean
}

export interface TerminatedBackendsResult {
  /** Reads and flushes that failed after the backends were ended, in each phase. */
  readonly problems: readonly string[]
  /** What the reads and flushes under the kills settled to (phase 2). */
  readonly during: Record<string, number>
}

const cfg = JSON.parse(process.argv[2] ?? '{}') as TerminatedBackendsConfig
const admin = postgres(cfg.adminUrl, { max: 1, onnotice: () => {} })
const item = `${cfg.name}_item`
const note = `${cfg.name}_note`
// Wide rows: a read's text is over 1 KiB (postgres.js writes such a query at once, not in a later
// macrotask, and a socket whose peer ended refuses it).
const wide = Array.from({ length: 30 }, (_, i) => `a_rather_long_column_name_number_${i}`)
await admin.unsafe(`
  create table "${item}" (id int primary key, ${wide.map((c) => `"${c}" text not null default 'x'`).join(', ')});
  insert into "${item}" (id) select g from generate_series(1, 50) g;
  create table "${note}" (id bigserial primary key, body text not null);
`)
const client = openClient(cfg.driver, cfg.adminUrl, createRoundTripCounter(), {
  max: cfg.max,
  postgresJs: { connection: { application_name: cfg.name } },
  pg: { application_name: cfg.name },
})
const root = await EntityManager.connect(client.client, { flushTimeoutMs: 5000 })
const sessions = driverFor(client.client)
const problems: string[] = []
const during: Record<string, number> = {}
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const terminate = () =>
  admin.unsafe(
    `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where application_name = '${cfg.name}'`,
  )
const backends = async () => {
  const [row] = await admin.unsafe<{ n: number }[]>(
    `select count(*)::int as n from pg_stat_activity where application_name = '${cfg.name}'`,
  )
  return row?.n ?? 0
}
let n = 0
const read = async () => {
  const id = 1 + (n++ % 50)
  const row = await root.fork().load(item, id)
  if (row['id'] !== id) throw new Error(`load(${id}) answered the row of ${String(row['id'])}`)
}
const write = async () => {
  const em = root.fork()
  em.create(note, { body: `note ${n++}` })
  await em.flush()
}
const describe = (e: unknown) => (isPipeflushError(e) ? `${e.code}: ${e.message}` : String(e)).slice(0, 160)
/** Rounds of reads and flushes, concurrently: each must succeed, each round within 5 s. */
const expectHealthy = async (phase: string) => {
  for (let round = 0; round < 3; round++) {
    const work = Array.from({ length: 2 * cfg.max }, (_, i) => (i % 2 === 0 ? read() : write()))
    let timer: NodeJS.Timeout | undefined
    const limit = new Promise<'hang'>((resolve) => {
      timer = setTimeout(() => resolve('hang'), 5000)
    })
    const outcome = await Promise.race([Promise.allSettled(work), limit])
    clearTimeout(timer)
    if (outcome === 'hang') {
      problems.push(`${phase}: round ${round} did not settle within 5 s`)
      return
    }
    for (const r of outcome) if (r.status === 'rejected') problems.push(`${phase}: ${describe(r.reason)}`)
  }
}

/** 1. Each connection held by a session with nothing sent, while its backend ends. */
const holdWhileEnded = async (phase: string) => {
  const held = await Promise.all(
    Array.from({ length: cfg.max }, () => sessions.reserve({ deadline: performance.now() + 5000 })),
  )
  await terminate()
  for (let i = 0; i < 100 && (await backends()) > 0; i++) await sleep(20)
  await sleep(100) // the drivers handled the sockets' close
  for (const session of held) {
    await session.simple('select 1').catch(() => {}) // fails: the connection is gone
    session.release()
  }
  await expectHealthy(phase)
}

await holdWhileEnded("after the cold pool's held connections ended")
// The pool's connections open again, and each serves a few queries.
await Promise.all(Array.from({ length: 4 * cfg.max }, (_, i) => (i % 2 === 0 ? read() : write())))
await holdWhileEnded('after the held connections ended')

// 2. The backends ended again and again while reads and flushes run.
let stop = !cfg.race
const load = (async () => {
  while (!stop) {
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? read() : write())),
    )
    for (const r of results) {
      const key = r.status === 'fulfilled' ? 'ok' : isPipeflushError(r.reason) ? r.reason.code : 'other'
      during[key] = (during[key] ?? 0) + 1
    }
  }
})()
if (cfg.race) {
  for (let k = 0; k < 6; k++) {
    await sleep(100 + Math.random() * 150)
    await terminate()
  }
  stop = true
  await load
  await sleep(1000) // the server is fine again
  await expectHealthy('after the backends were ended under load')
}

await client.end()
await admin.end({ timeout: 1 })
const result: TerminatedBackendsResult = { problems: [...new Set(problems)].slice(0, 20), during }
process.stdout.write(`${JSON.stringify(result)}\n`)
if (problems.length > 0) process.exitCode = 1
