// Run as its own Node process under Node's defaults (no handler installed): a stray rejection ends it
// with a non-zero exit code, and a timer or socket left behind keeps it from exiting.
//
// A postgres.js client of a multi-host URL where nothing listens at any host: `connect`, and a flush
// of a unit of work on a declared schema, fail at once as they do with one host (HOST_UNREACHABLE,
// naming every host), not at connect_timeout; postgres.js, which tries the hosts again for every
// request it holds for ever, does not try them thousands of times a second meanwhile. Then the second
// host comes up: a flush commits through it. Then every host is down again, a flush fails, and the
// application's `sql.end()` lets the process exit. Prints one JSON line.
import { createServer, type Server, Socket } from 'node:net'
import { defineSchema, EntityManager, isPipeflushError } from '@pipeflush/core'
import postgres from 'postgres'

export interface MultiHostDownConfig {
  /** The test database's URL. */
  readonly url: string
  /** Two ports nothing listens at. */
  readonly ports: readonly [number, number]
  readonly table: string
}

export interface MultiHostDownResult {
  readonly connect: { readonly code: string; readonly ms: number; readonly message: string }
  readonly flush: { readonly code: string; readonly ms: number }
  /** Openings of connections (socket factory calls) in the two seconds after those failures. */
  readonly openings: number
  /** The flush once the second host is up: attempts until it committed, and the rows then. */
  readonly recovered: { readonly attempts: number; readonly rows: number }
  readonly downAgain: string
  readonly endMs: number
}

const config = JSON.parse(process.argv[2]!) as MultiHostDownConfig
const target = new URL(config.url)
const [a, b] = config.ports
const url = `postgres://${target.username}:${target.password}@127.0.0.1:${a},127.0.0.1:${b}${target.pathname}`
// postgres.js's default connect_timeout: 30 s, and its array type fetch: a connection cut while it
// fetched, every host then refusing, is one of the cases (the postgres.js adapter's README, item 3).
const sql = postgres(url, { max: 3, onnotice: () => {} })

const outcome = async (p: Promise<unknown>) => {
  const started = performance.now()
  try {
    await p
    return { code: 'ok', ms: performance.now() - started, message: '' }
  } catch (e) {
    const ms = performance.now() - started
    return isPipeflushError(e)
      ? { code: e.code, ms, message: e.message }
      : { code: `not a PipeflushError: ${String(e)}`, ms, message: '' }
  }
}

const connect = await outcome(EntityManager.connect(sql))
const root = await EntityManager.connect(sql, {
  schema: defineSchema({ [config.table]: { columns: { id: 'int8', name: 'text' }, primaryKey: ['id'] } }),
})
const unit = (id: number) => {
  const em = root.fork()
  em.create(config.table, { id, name: `n${id}` })
  return em
}
const flush = await outcome(unit(1).flush())

// Openings postgres.js asks for while every host refuses (it opens again for the requests it holds).
const options = (sql as unknown as { options: { socket: (o: unknown) => Promise<Socket> } }).options
const factory = options.socket
let openings = 0
options.socket = (o) => {
  openings++
  return factory(o)
}
await new Promise((resolve) => setTimeout(resolve, 2_000))
const openingsSeen = openings

// The second host comes up: a forwarder to the database.
const held = new Set<Socket>()
const forwarder: Server = createServer((client) => {
  const up = new Socket()
  held.add(client).add(up)
  client.on('error', () => {}).on('close', () => up.destroy())
  up.on('error', () => {}).on('close', () => client.destroy())
  up.connect(Number(target.port), target.hostname)
  client.pipe(up).pipe(client)
})
await new Promise<void>((resolve) => forwarder.listen(b, '127.0.0.1', resolve))
const em = unit(2)
let attempts = 0
for (; attempts < 10; ) {
  attempts++
  const r = await outcome(em.flush())
  if (r.code === 'ok') break
  await new Promise((resolve) => setTimeout(resolve, 300))
}
const [row] = await sql.unsafe<{ n: number }[]>(`select count(*)::int as n from ${config.table} where id = 2`)

// Every host down again.
await new Promise<void>((resolve) => {
  forwarder.close(() => resolve())
  for (const s of held) s.destroy()
})
await new Promise((resolve) => setTimeout(resolve, 300)) // postgres.js saw its connections close
const downAgain = await outcome(unit(3).flush())
const ending = performance.now()
await sql.end()
const result: MultiHostDownResult = {
  connect: { code: connect.code, ms: Math.round(connect.ms), message: connect.message },
  flush: { code: flush.code, ms: Math.round(flush.ms) },
  openings: openingsSeen,
  recovered: { attempts, rows: row?.n ?? 0 },
  downAgain: downAgain.code,
  endMs: Math.round(performance.now() - ending),
}
console.log(JSON.stringify(result))
