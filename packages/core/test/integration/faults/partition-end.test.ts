import { defineSchema, EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { settleWithin, sleep, watchProcess } from './support.ts'
import { startTestProxy, type TestProxy } from './test-proxy.ts'
import { openTrackedClient } from './tracked-client.ts'

// A network partition: once it starts, the server's address still takes TCP connections, and
// nothing passes either way. A flush and two reads give up at their deadline, the reads' connections
// opening, silent. The application's end settles, and with it those openings end. On postgres.js,
// which opens connections again for the requests they left it, those were left until its connect
// timeout, holding the process after `end()` returned; on node-postgres (no connect timeout), the
// opening of the read that gave up first, while the other waited, was never ended: its slot of the
// pool held for good, and `pool.end()` never settled.
const db = useTestDatabase()
const schema = defineSchema({ shard: { columns: { id: 'int8', name: 'text' }, primaryKey: ['id'] } })

let proxy: TestProxy
let url = ''
/** Whether the partition is on: nothing passes, new connections are taken and left silent. */
let partitioned = false

beforeAll(async () => {
  await db.sql.unsafe('create table if not exists shard (id int8 primary key, name text not null)')
  proxy = await startTestProxy(db.url, (client, upstream) => {
    if (partitioned) return
    const server = upstream()
    client.on('data', (chunk) => {
      if (!partitioned) server.write(chunk)
    })
    server.on('data', (chunk: Buffer) => {
      if (!partitioned) client.write(chunk)
    })
  })
  url = proxy.url
})

afterAll(() => proxy.close())

let nextId = 1

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('a partition: a flush and two reads give up at their deadline, the end settles and leaves no connection opening', async () => {
    partitioned = false
    const c = openTrackedClient(driver, url, { max: 4, postgresJs: { connect_timeout: 20 } })
    const watch = watchProcess()
    try {
      const root = await EntityManager.connect(c.client, { schema, flushTimeoutMs: 800 })
      const warm = root.fork()
      warm.create('shard', { id: nextId++, name: `before-${driver}` })
      await warm.flush()
      partitioned = true
      const em = root.fork()
      em.create('shard', { id: nextId++, name: `during-${driver}` })
      const given = await Promise.all([
        settleWithin(em.flush(), 5_000, 'the flush'),
        settleWithin(root.fork().find('shard', {}, { limit: 1 }), 5_000, 'a read'),
        settleWithin(root.fork().find('shard', {}, { limit: 2 }), 5_000, 'another read'),
      ])
      for (const { error } of given) expect(isPipeflushError(error), String(error)).toBe(true)
      const ended = await settleWithin(c.end(), 5_000, 'the end')
      expect(ended.error, String(ended.error)).toBeUndefined()
      // What closes with the end has closed a macrotask later; nothing waits for the connect timeout.
      await sleep(100)
      expect([...c.sockets].filter((s) => !s.destroyed).length, 'sockets left open after the end').toBe(0)
      await watch.assertClean()
    } finally {
      partitioned = false
      watch.dispose()
    }
  })

  test('a partition with one connection idle: two flushes give up (one on it, one opening another), no opening is left and the end settles', async () => {
    partitioned = false
    const c = openTrackedClient(driver, url, { max: 2, postgresJs: { connect_timeout: 20 } })
    const watch = watchProcess()
    try {
      const root = await EntityManager.connect(c.client, { schema, flushTimeoutMs: 500 })
      const warm = root.fork()
      warm.create('shard', { id: nextId++, name: `before-${driver}` })
      await warm.flush()
      partitioned = true
      const given = await Promise.all(
        [1, 2].map((n) => {
          const em = root.fork()
          em.create('shard', { id: nextId++, name: `during-${driver}-${n}` })
          return settleWithin(em.flush(), 5_000, `flush ${n}`)
        }),
      )
      for (const { error } of given) expect(isPipeflushError(error), String(error)).toBe(true)
      // Nothing waits any more: on node-postgres no connection stays opening for the flushes that
      // gave up (pg-pool made the second one's outside its connect(), for the request it queued while
      // a client was idle: it held its slot, and the pool's end never settled). postgres.js opens
      // again for the requests left in its queue until the end refuses them (see the test above).
      await sleep(300)
      if (driver === 'pg')
        expect([...c.sockets].filter((s) => !s.destroyed).length, 'connections left opening').toBe(0)
      const ended = await settleWithin(c.end(), 5_000, 'the end')
      expect(ended.error, String(ended.error)).toBeUndefined()
      await sleep(100)
      expect([...c.sockets].filter((s) => !s.destroyed).length, 'sockets left open after the end').toBe(0)
      await watch.assertClean()
    } finally {
      partitioned = false
      watch.dispose()
    }
  })
})
