import { createServer, type Server, type Socket } from 'node:net'
import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { settleWithin, watchProcess } from './support.ts'
import { openTrackedClient } from './tracked-client.ts'

// A URL pointing at a port where something else than PostgreSQL listens (here an HTTP server, which
// answers whatever it is sent with a 400). node-postgres asked for TLS read its answer to the
// SSLRequest as a TLS failure: TLS_FAILED, "check the TLS settings", which cannot help (found by an
// outside probe). Whatever the TLS settings, it is a connection that could not be made:
// CONNECTION_LOST naming the address, as postgres.js says it.
const db = useTestDatabase()

let http: Server
let address = ''
const open = new Set<Socket>()

beforeAll(async () => {
  http = createServer((socket) => {
    open.add(socket)
    socket.once('close', () => open.delete(socket))
    socket.on('error', () => {})
    socket.once('data', () => socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'))
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  address = `127.0.0.1:${(http.address() as { port: number }).port}`
})

afterAll(async () => {
  for (const socket of open) socket.destroy()
  await new Promise((resolve) => http.close(resolve))
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each([false, true])(
    'connect to a port where HTTP listens (TLS asked: %s): CONNECTION_LOST naming the address, no TLS advice; the client ends',
    async (tls) => {
      const url = new URL(db.url)
      url.host = address
      if (tls) url.searchParams.set('sslmode', driver === 'pg' ? 'no-verify' : 'require')
      const c = openTrackedClient(driver, url.toString(), { max: 2, connectTimeoutSeconds: 2 })
      const watch = watchProcess()
      try {
        const failed = await EntityManager.connect(c.client).catch((e: unknown) => e)
        expect(isPipeflushError(failed, 'CONNECTION_LOST'), String(failed)).toBe(true)
        expect((failed as Error).message).toContain(address)
        expect((failed as Error).message).not.toMatch(/check the TLS settings/)
        if (driver === 'pg' && tls)
          expect((failed as Error).message).toMatch(/SSLRequest with neither S nor N/)
        expect((await settleWithin(c.end(), 5_000, 'the end')).error).toBeUndefined()
        await watch.assertClean()
      } finally {
        watch.dispose()
      }
    },
  )
})
