import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { settleWithin, watchProcess } from './support.ts'
import { startTestProxy, type TestProxy } from './test-proxy.ts'
import { openTrackedClient } from './tracked-client.ts'

// A pooler whose link to the server breaks in the middle of an answer writes its own error message
// into the client's stream (PgBouncer: `server conn crashed?`), the half-sent message before it: the
// driver reads the error's bytes as the rest of a row, past the end of what it holds. node-postgres's
// parser threw that from its socket's data listener (the process died); postgres.js rejected the
// query with the RangeError, which a flush took for the driver refusing the message ("Nothing was
// committed", when its COMMIT had been written), and kept the connection, whose client then never
// ended. The connection is lost, as when it closes: a read fails CONNECTION_LOST, a flush whose
// COMMIT was written COMMIT_OUTCOME_UNKNOWN, and the client ends.
const db = useTestDatabase()

/** An ErrorResponse as PgBouncer writes one when its server connection breaks. */
function poolerError(): Buffer {
  const fields = Buffer.from('SERROR\0C08P01\0Mserver conn crashed?\0\0')
  const head = Buffer.alloc(5)
  head.write('E', 0)
  head.writeUInt32BE(fields.length + 4, 1)
  return Buffer.concat([head, fields])
}

let proxy: TestProxy
/** Set: the next answer from the server is cut after this many bytes and the pooler's error written. */
let garbleAfter: number | undefined

beforeAll(async () => {
  await db.sql.unsafe(
    'create table if not exists garbled (id int8 primary key, body text not null, made timestamptz not null default now())',
  )
  await db.sql.unsafe(
    `insert into garbled (id, body) select g, repeat('x', 200) from generate_series(1, 200) g`,
  )
  proxy = await startTestProxy(db.url, (client, upstream) => {
    const server = upstream()
    let cut: number | undefined
    let passed = 0
    client.on('data', (chunk) => {
      // The answer to what the client writes now is the one to cut.
      if (garbleAfter !== undefined && cut === undefined) {
        cut = garbleAfter
        garbleAfter = undefined
        passed = 0
      }
      server.write(chunk)
    })
    server.on('data', (chunk: Buffer) => {
      if (cut === undefined) return void client.write(chunk)
      if (passed >= cut) return // the server link is gone: nothing more reaches the client
      const room = cut - passed
      passed += chunk.length
      if (chunk.length < room) return void client.write(chunk)
      // Its error, written again and again: enough bytes to complete the message it cut.
      client.write(Buffer.concat([chunk.subarray(0, room), ...new Array<Buffer>(300).fill(poolerError())]))
    })
  })
})

afterAll(() => proxy.close())

let nextId = 1_000

describe.each(TEST_DRIVERS)('%s', (driver) => {
  // Offsets into the answer: inside its first row, and further in.
  test.each([40, 700, 3_000])(
    'an answer garbled after %i bytes: the read is CONNECTION_LOST, the flush COMMIT_OUTCOME_UNKNOWN, the client ends',
    async (offset) => {
      const c = openTrackedClient(driver, proxy.url, { max: 2 })
      const watch = watchProcess()
      try {
        const root = await EntityManager.connect(c.client, { flushTimeoutMs: 3_000 })
        await root.fork().find('garbled', { id: 1 })
        garbleAfter = offset
        const read = await settleWithin(root.fork().find('garbled', {}), 5_000, 'the read')
        console.log('DBG', driver, offset, String(read.error))
        expect(isPipeflushError(read.error, 'CONNECTION_LOST'), String(read.error)).toBe(true)
        // The pool goes on: the next read is answered.
        expect(await root.fork().find('garbled', { id: 2 })).toHaveLength(1)

        const em = root.fork()
        const ids: number[] = []
        for (let i = 0; i < 40; i++) {
          ids.push(nextId)
          em.create('garbled', { id: nextId++, body: 'y'.repeat(100) })
        }
        garbleAfter = offset
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
        garbleAfter = undefined
        watch.dispose()
      }
    },
  )
})
