import { defineSchema, EntityManager, isPipeflushError } from '@pipeflush/core'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { settleWithin, watchProcess } from './support.ts'
import { startTestProxy, type TestProxy } from './test-proxy.ts'
import { openTrackedClient } from './tracked-client.ts'

// node-postgres, a pool the application shares with pipeflush (its own queries, Drizzle's): the
// application's requests queued ahead of a flush's reservation get connections pg-pool opens outside
// their `connect()`, slowly (the server takes a while to answer a new connection). The flush gives
// up at its deadline and the openings it made are ended; the application's are not: they connect,
// and its requests are served.
const db = useTestDatabase()
const schema = defineSchema({ shared_item: { columns: { id: 'int8', name: 'text' }, primaryKey: ['id'] } })

let proxy: TestProxy
let url = ''
/** New connections are passed to the server this late (the first ones at once). */
let lateMs = 0

beforeAll(async () => {
  await db.sql.unsafe('create table if not exists shared_item (id int8 primary key, name text not null)')
  proxy = await startTestProxy(db.url, (client, upstream) => {
    setTimeout(() => {
      const server = upstream()
      client.pipe(server).pipe(client)
    }, lateMs)
  })
  url = proxy.url
})

afterAll(() => proxy.close())

describe('pg', () => {
  test("a flush gives up behind the application's queued requests: their connections are left to open, and serve them", async () => {
    lateMs = 0
    const c = openTrackedClient('pg', url, { max: 2 })
    const pool = c.client as pg.Pool
    const watch = watchProcess()
    try {
      const root = await EntityManager.connect(c.client, { schema, flushTimeoutMs: 500 })
      // One idle client; new connections answer 1.5 s late from now on.
      lateMs = 1_500
      // In one tick: two requests of the application, then a flush (its reservation queued last).
      const first = pool.connect()
      const second = settleWithin(pool.connect(), 5_000, "the application's second request")
      const em = root.fork()
      em.create('shared_item', { id: 1, name: 'queued' })
      const flushed = await settleWithin(em.flush(), 5_000, 'the flush')
      expect(isPipeflushError(flushed.error, 'FLUSH_TIMEOUT'), String(flushed.error)).toBe(true)
      ;(await first).release()
      // Its connection was the flush's to end only if the flush had opened it: it serves the application.
      const got = await second
      expect(got.error, String(got.error)).toBeUndefined()
      const client = got.value as pg.PoolClient
      expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }])
      client.release()
      const ended = await settleWithin(c.end(), 5_000, 'the end')
      expect(ended.error, String(ended.error)).toBeUndefined()
      await watch.assertClean()
    } finally {
      lateMs = 0
      watch.dispose()
    }
  })
})
