import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { settleWithin, watchProcess } from './support.ts'
import { startTestProxy, type TestProxy } from './test-proxy.ts'
import { openTrackedClient } from './tracked-client.ts'

// A pooler whose link to the server breaks in the middle of an answer writes its own error message
// into the client's stream (PgBouncer: `server conn crashed?`) behind the half-sent row: the driver
// reads past the end of what it holds. Here a row is cut short after its column count (a header
// saying so), the rest never coming. node-postgres's parser threw that from its socket's data
// listener (the process died); postgres.js rejected the query with the RangeError, which a flush
// took for the driver refusing the message ("Nothing was committed", when its COMMIT had been
// written), and kept the connection, whose client then never ended. The connection is lost, as when
// it closes: a read fails CONNECTION_LOST, a flush whose COMMIT was written COMMIT_OUTCOME_UNKNOWN
// (its new rows return the server's default: rows in its answer), and the client ends.
const db = useTestDatabase()

let proxy: TestProxy
/** Set: the next answer from the server is garbled at its DataRow of this index (0: the first). */
let garbleRow: number | undefined

beforeAll(async () => {
  await db.sql.unsafe(
    'create table if not exists garbled (id int8 primary key, body text not null, made timestamptz not null default now())',
  )
  await db.sql.unsafe(
    `insert into garbled (id, body) select g, repeat('x', 200) from generate_series(1, 200) g`,
  )
  proxy = await startTestProxy(db.url, (client, upstream) => {
    const server = upstream()
    let row: number | undefined
    let rows = 0
    let cut = false
    let pending = Buffer.alloc(0)
    client.on('data', (chunk) => {
      if (cut) return // nor does anything reach the server: only the client can end the connection
      // The answer to what the client writes now is the one to garble.
      if (garbleRow !== undefined && row === undefined) {
        row = garbleRow
        garbleRow = undefined
      }
      server.write(chunk)
    })
    server.on('data', (chunk: Buffer) => {
      if (cut) return // the link to the server is gone: nothing more reaches the client
      if (row === undefined) return void client.write(chunk)
      pending = Buffer.concat([pending, chunk])
      let at = 0
      while (pending.length - at >= 5) {
        const length = pending.readUInt32BE(at + 1)
        if (pending.length - at < length + 1) break
        if (pending[at] === 0x44 && rows++ === row) {
          // The row's header and its column count, then nothing: the rest of it never comes.
          client.write(
            Buffer.concat([
              pending.subarray(0, at),
              Buffer.from('D\0\0\0\x06'),
              pending.subarray(at + 5, at + 7),
            ]),
          )
          cut = true
          return
        }
        at += length + 1
      }
      client.write(pending.subarray(0, at))
      pending = pending.subarray(at)
    })
  })
})

afterAll(() => proxy.close())

let nextId = 1_000

describe.each(TEST_DRIVERS)('%s', (driver) => {
  // The answer's first row, and one further in.
  test.each([0, 17])(
    'an answer whose row %i is cut short: the read is CONNECTION_LOST, the flush COMMIT_OUTCOME_UNKNOWN, the client ends',
    async (garbled) => {
      const c = openTrackedClient(driver, proxy.url, { max: 2 })
      const watch = watchProcess()
      try {
        const root = await EntityManager.connect(c.client, { flushTimeoutMs: 3_000 })
        await root.fork().find('garbled', { id: 1 })
        garbleRow = garbled
        const read = await settleWithin(root.fork().find('garbled', {}), 5_000, 'the read')
        expect(isPipeflushError(read.error, 'CONNECTION_LOST'), String(read.error)).toBe(true)
        // The pool goes on: the next read is answered.
        expect(await root.fork().find('garbled', { id: 2 })).toHaveLength(1)

        const em = root.fork()
        const ids: number[] = []
        for (let i = 0; i < 40; i++) {
          ids.push(nextId)
          em.create('garbled', { id: nextId++, body: 'y'.repeat(100) })
        }
        garbleRow = garbled
        const flushed = await settleWithin(em.flush(), 5_000, 'the flush')
        expect(isPipeflushError(flushed.error, 'COMMIT_OUTCOME_UNKNOWN'), String(flushed.error)).toBe(true)
        // All of it or none, as the server had it when the pooler's link broke.
        const [row] = await db.sql<
          { n: number }[]
        >`select count(*)::int as n from garbled where id = any(${ids})`
        expect([0, 40]).toContain(row!.n)
        const ended = await settleWithin(c.end(), 5_000, 'the end')
        expect(ended.error, String(ended.error)).toBeUndefined()
        await watch.assertClean()
      } finally {
        garbleRow = undefined
        watch.dispose()
      }
    },
  )
})
