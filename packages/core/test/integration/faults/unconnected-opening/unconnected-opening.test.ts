import { fork } from 'node:child_process'
import { connect, type Socket } from 'node:net'
import { fileURLToPath } from 'node:url'
import { defineSchema, EntityManager, isPipeflushError } from '@pipeflush/core'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import pg from 'pg'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { settleWithin, sleep, watchProcess } from '../support.ts'

// node-postgres has no connect timeout by default: a connection to a host that drops its packets
// stays pending until the system gives up (about two minutes on Linux), holding a slot of the pool
// all along. A flush that gave up waiting for it (FLUSH_TIMEOUT) left it so: once the address
// answered again, every later flush on a pool of one waited behind it and failed too, and the pool's
// end() waited for it. The flush now ends it as it gives up. (postgres.js connects with its own
// `connect_timeout`, 30 s by default: pipeflush's socket factory ends such a connection then.)
const BLACK_HOLE = fileURLToPath(new URL('./black-hole.ts', import.meta.url))
const db = useTestDatabase()
const schema = defineSchema({ widget: { columns: { id: 'int8', name: 'text' }, primaryKey: ['id'] } })

let hole: ReturnType<typeof fork> | undefined
let holePort = 0
const fillers: Socket[] = []

beforeAll(async () => {
  await db.sql.unsafe('create table if not exists widget (id int8 primary key, name text not null)')
  hole = fork(BLACK_HOLE, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  holePort = await new Promise<number>((resolve) => hole!.once('message', (port) => resolve(Number(port))))
  await sleep(200) // blocked by now
  // The queue filled: later connections' packets are dropped.
  for (let i = 0; i < 2; i++) {
    const s = connect(holePort, '127.0.0.1')
    s.on('error', () => {})
    fillers.push(s)
    await new Promise((resolve) => s.once('connect', resolve))
  }
})

afterAll(() => {
  for (const s of fillers) s.destroy()
  hole?.kill('SIGKILL')
})

test('pg: a flush that gave up on a connection whose packets are dropped ends it: the next flush commits, the pool ends', async () => {
  // The host really drops: a connection to it stays pending.
  const probe = connect(holePort, '127.0.0.1')
  probe.on('error', () => {})
  await sleep(300)
  expect(probe.pending).toBe(true)
  probe.destroy()

  const url = new URL(db.url)
  const pool = new pg.Pool({
    host: url.hostname,
    port: Number(url.port),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: url.pathname.slice(1),
    max: 1,
  })
  const watch = watchProcess()
  try {
    const root = await EntityManager.connect(pool, { schema, flushTimeoutMs: 400 })
    const idle = await pool.connect()
    idle.release(true) // connect's connection closed: the flush opens one
    // The address now drops the packets (as after a failover to a new address, or a firewall's change).
    pool.options.port = holePort
    pool.options.host = '127.0.0.1'
    const em = root.fork()
    em.create('widget', { id: 1, name: 'first' })
    const first = await settleWithin(em.flush(), 5_000, 'the flush')
    expect(isPipeflushError(first.error), String(first.error)).toBe(true)
    expect((first.error as { code?: string }).code).toBe('FLUSH_TIMEOUT')
    await sleep(50) // the pool heard of the socket's end
    expect(pool.totalCount).toBe(0) // the opening was ended: its slot is free
    // The address answers again.
    pool.options.port = Number(url.port)
    pool.options.host = url.hostname
    const retry = await settleWithin(em.flush(), 5_000, 'the retry')
    expect(retry.error, String(retry.error)).toBeUndefined()
    const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from widget where id = 1`
    expect(row!.n).toBe(1)
    await settleWithin(pool.end(), 5_000, "the pool's end")
    await watch.assertClean()
  } finally {
    watch.dispose()
  }
}, 30_000)
