import { createServer, type Server, Socket } from 'node:net'
import { defineSchema, EntityManager, isPipeflushError } from '@pipeflush/core'
import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { settleWithin, sleep, watchProcess } from './support.ts'
import { openTrackedClient } from './tracked-client.ts'

// A client's first connection cut by the network partway through its opening, at offsets stepped
// through the server's bytes (its startup, and on postgres.js the array types it fetches next): connect
// fails with a PipeflushError or succeeds on another connection, no rejection is left unhandled, and
// the client ends. postgres.js 3.4.9 left the type fetch of a connection opened for a reservation
// rejected with nobody to handle it.
const db = useTestDatabase()

let server: Server
let port = 0
/** Server bytes after which the next connection through the proxy is cut (then the others pass). */
let cutAt: number | undefined

beforeAll(async () => {
  const target = new URL(db.url)
  server = createServer((client) => {
    const limit = cutAt
    cutAt = undefined
    const up = new Socket()
    up.connect(Number(target.port), target.hostname)
    let down = 0
    const close = () => {
      client.destroy()
      up.destroy()
    }
    client.on('data', (d) => up.write(d))
    up.on('data', (d: Buffer) => {
      if (limit !== undefined && down + d.length >= limit) {
        client.write(d.subarray(0, limit - down))
        close()
        return
      }
      down += d.length
      client.write(d)
    })
    for (const s of [client, up]) {
      s.on('error', close)
      s.on('close', close)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as { port: number }).port
})

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** A client of `max` connections through the cutting proxy (none open yet). */
function throughProxy(driver: DriverName, max: number) {
  const url = new URL(db.url)
  url.hostname = '127.0.0.1'
  url.port = String(port)
  return openTrackedClient(driver, url.toString(), { max, connectTimeoutSeconds: 3 })
}

const OFFSETS = Array.from({ length: 16 }, (_, i) => 200 * (i + 1))

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each(OFFSETS)(
    'cut after %i bytes of the first opening: a coded error or a connection, nothing unhandled, an end',
    async (offset) => {
      const c = throughProxy(driver, 1)
      const watch = watchProcess()
      try {
        cutAt = offset
        const connecting = await settleWithin(EntityManager.connect(c.client), 10_000, 'connect')
        if (!connecting.ok) expect(isPipeflushError(connecting.error), String(connecting.error)).toBe(true)
        else {
          // The cut may come after connect's own reads, under the next one: that one fails, the next succeeds.
          const read = () => connecting.value!.fork().select({ text: 'select 1 as n', params: [] })
          const first = await settleWithin(read(), 10_000, 'a read')
          if (!first.ok) expect(first.error).toMatchObject({ code: 'CONNECTION_LOST' })
          const [row] = first.ok ? first.value! : await read()
          expect(row?.['n']).toBe(1)
        }
        await settleWithin((c.client as { end(): Promise<void> }).end(), 3_000, 'the end')
        await watch.assertClean()
      } finally {
        watch.dispose()
        cutAt = undefined
      }
    },
  )
})

// A cold pool of three opening at once, the first connection cut during its opening (its array type
// fetch, on postgres.js), the others serving the reads; the client ended right after (found by an
// outside probe): postgres.js 3.4.9 kept the cut connection's type fetch pending, rejected it at the
// end, and nothing handled the rejection (every host refusing the reopening: `multi-host-down/`).
describe.each(TEST_DRIVERS)('%s, a cold pool of 3', (driver) => {
  test.each(OFFSETS)(
    'first connection cut after %i bytes, the reads served by the others, then the end: nothing unhandled',
    async (offset) => {
      const c = throughProxy(driver, 3)
      const watch = watchProcess()
      try {
        // A declared schema: connect opens nothing, the reads open the pool's connections.
        const root = await EntityManager.connect(c.client, {
          schema: defineSchema({ t: { columns: { id: 'int8' }, primaryKey: ['id'] } }),
        })
        cutAt = offset
        const read = () => root.fork().select({ text: 'select 1 as n', params: [] })
        const reads = await Promise.all([1, 2, 3].map(() => settleWithin(read(), 10_000, 'a read')))
        for (const r of reads) if (!r.ok) expect(isPipeflushError(r.error), String(r.error)).toBe(true)
        // One read at least is served once the cut is over.
        const [row] = await read()
        expect(row?.['n']).toBe(1)
        await settleWithin((c.client as { end(): Promise<void> }).end(), 5_000, 'the end')
        await sleep(500) // postgres.js's reconnect of the cut connection, refused once the client ended
        await watch.assertClean()
      } finally {
        watch.dispose()
        cutAt = undefined
      }
    },
  )
})

// Once the type fetch is answered, a close is postgres.js's as ever: a query sent on the connection
// as it closes is rejected (a close taken as one during the fetch would leave it unsettled).
describe('postgres.js, after the type fetch', () => {
  test('a query sent as the idle first connection closes is rejected CONNECTION_CLOSED', async () => {
    const target = new URL(db.url)
    let armed = false
    let late: Promise<string> | undefined
    const sql = postgres(db.url, {
      max: 1,
      onnotice: () => {},
      connection: { application_name: 'after_types' },
    })
    // The application's own socket factory, which pipeflush keeps: it sends a query as the socket closes.
    ;(sql.options as { socket?: unknown }).socket = async () => {
      const socket = new Socket()
      socket.connect(Number(target.port), target.hostname)
      socket.on('close', () =>
        queueMicrotask(() => {
          if (!armed) return
          armed = false
          late = sql`select 1 as x`.then(
            () => 'resolved',
            (e: { code?: string }) => `rejected ${e.code}`,
          )
        }),
      )
      return socket
    }
    const watch = watchProcess()
    try {
      // A declared schema: connect opens nothing. The application's reservation opens the first
      // connection, which fetches the types, and gives it back without writing.
      await EntityManager.connect(sql, {
        schema: defineSchema({ t: { columns: { id: 'int8' }, primaryKey: ['id'] } }),
        prepare: true,
      })
      const reserved = await sql.reserve()
      reserved.release()
      await new Promise((resolve) => setTimeout(resolve, 100))
      armed = true
      await db.sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'after_types'`
      for (let i = 0; i < 100 && late === undefined; i++)
        await new Promise((resolve) => setTimeout(resolve, 10))
      const settled = await settleWithin(late!, 3_000, 'the query')
      expect(settled.value).toBe('rejected CONNECTION_CLOSED')
      await settleWithin(sql.end({ timeout: 1 }), 3_000, 'the end')
      await watch.assertClean()
    } finally {
      watch.dispose()
    }
  })
})
