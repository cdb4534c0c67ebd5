import { createServer, Socket } from 'node:net'
import { EntityManager } from '@pipeflush/core'
import { type SilentServer, startSilentServer } from '@pipeflush/testkit'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { settleWithin, watchProcess } from './support.ts'

// A multi-host URL whose first host accepts connections and never answers (a hung server, packets
// dropped): a connection that times out there fails its request (postgres.js's CONNECT_TIMEOUT, as
// without pipeflush), and the next connection goes to the next host, as postgres.js's own do. Through
// pipeflush's socket factory every new connection tried the silent host first again, and failed.
const db = useTestDatabase()

let silent: SilentServer

beforeAll(async () => {
  await db.sql.unsafe('create table if not exists silent_item (id int8 primary key, name text not null)')
  silent = await startSilentServer()
})

afterAll(() => silent.close())

describe('postgres.js, the first host silent', () => {
  test('the first connect times out there; the next, and every unit after, reach the second host', async () => {
    const target = new URL(db.url)
    const url = `postgres://${target.username}:${target.password}@127.0.0.1:${silent.port},127.0.0.1:${target.port}${target.pathname}`
    const sql = postgres(url, { max: 2, connect_timeout: 1, onnotice: () => {} })
    const watch = watchProcess()
    try {
      const first = await settleWithin(EntityManager.connect(sql), 10_000, 'connect')
      if (!first.ok) expect(first.error).toMatchObject({ name: 'PipeflushError' })
      const connecting = first.ok ? first : await settleWithin(EntityManager.connect(sql), 10_000, 'connect')
      expect(connecting.error, String(connecting.error)).toBeUndefined()
      expect(connecting.ms).toBeLessThan(900)
      const root = connecting.value!
      for (let i = 0; i < 5; i++) {
        const em = root.fork()
        em.create('silent_item', { id: i + 1, name: `n${i}` })
        const flushed = await settleWithin(em.flush(), 10_000)
        expect(flushed.error, String(flushed.error)).toBeUndefined()
        expect(flushed.ms).toBeLessThan(900)
      }
      const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from silent_item`
      expect(row!.n).toBe(5)
      await settleWithin(sql.end(), 5_000, 'the end')
      await watch.assertClean()
    } finally {
      watch.dispose()
    }
  })

  // A CancelRequest's connection closes without a byte from the server too: no sign of a silent host.
  test('a cancelled query leaves the hosts in their order: new connections still go to the first', async () => {
    const target = new URL(db.url)
    let forwarded = 0
    const forwarder = createServer((client) => {
      forwarded++
      const up = new Socket()
      up.connect(Number(target.port), target.hostname)
      client.on('error', () => {})
      up.on('error', () => {})
      client.pipe(up).pipe(client)
    })
    await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve))
    const port = (forwarder.address() as { port: number }).port
    const url = `postgres://${target.username}:${target.password}@127.0.0.1:${target.port},127.0.0.1:${port}${target.pathname}`
    const sql = postgres(url, { max: 4, onnotice: () => {} })
    try {
      await EntityManager.connect(sql)
      const sleeping = sql`select pg_sleep(3)`
      const settled = sleeping.then(
        () => 'done',
        (e: { code?: string }) => e.code,
      )
      await new Promise((resolve) => setTimeout(resolve, 300))
      await sleeping.cancel()
      expect(await settled).toBe('57014')
      await Promise.all([1, 2, 3].map(() => sql`select pg_sleep(0.2)`))
      expect(forwarded).toBe(0)
    } finally {
      await sql.end({ timeout: 1 })
      await new Promise<void>((resolve) => forwarder.close(() => resolve()))
    }
  })
})
