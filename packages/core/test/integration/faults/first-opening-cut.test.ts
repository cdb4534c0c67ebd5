import { createServer, type Server, Socket } from 'node:net'
import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { settleWithin, watchProcess } from './support.ts'
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

const OFFSETS = Array.from({ length: 16 }, (_, i) => 200 * (i + 1))

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each(OFFSETS)(
    'cut after %i bytes of the first opening: a coded error or a connection, nothing unhandled, an end',
    async (offset) => {
      const url = new URL(db.url)
      url.hostname = '127.0.0.1'
      url.port = String(port)
      const c = openTrackedClient(driver, url.toString(), { max: 1, connectTimeoutSeconds: 3 })
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
