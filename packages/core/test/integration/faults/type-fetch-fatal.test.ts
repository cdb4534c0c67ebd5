import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import postgres from 'postgres'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { watchProcess } from './support.ts'
import { startTestProxy, type TestProxy } from './test-proxy.ts'

// A pooler whose server is down (PgBouncer with server_login_retry) answers a new connection's startup
// itself, then fails its first query with a FATAL ErrorResponse and closes. On postgres.js that first
// query is its array type fetch, which nothing awaits: the rejection was unhandled, and under Node's
// defaults the process ended (found by an outside probe behind PgBouncer 1.18).
const db = useTestDatabase()
let proxy: TestProxy
/** Connections the proxy fails so: the startup passes, the first query after it is refused FATAL. */
let failing = true

/** A FATAL ErrorResponse (SQLSTATE 08P01) with `message`, as PgBouncer sends it. */
function fatal(message: string): Buffer {
  const fields = Buffer.concat([
    Buffer.from('SFATAL\0VFATAL\0C08P01\0'),
    Buffer.from(`M${message}\0`),
    Buffer.from([0]),
  ])
  const head = Buffer.alloc(5)
  head[0] = 0x45
  head.writeUInt32BE(fields.length + 4, 1)
  return Buffer.concat([head, fields])
}

beforeAll(async () => {
  proxy = await startTestProxy(db.url, (client, upstream) => {
    const server = upstream()
    let ready = false
    let refused = false
    client.on('data', (chunk: Buffer) => {
      if (refused) return
      if (failing && ready) {
        refused = true
        client.end(fatal('server login has been failing, try again later (server_login_retry)'))
        server.destroy()
        return
      }
      server.write(chunk)
    })
    server.on('data', (chunk: Buffer) => {
      if (refused) return
      // The startup is over at the first ReadyForQuery ('Z', length 5) ending a chunk.
      if (chunk.length >= 6 && chunk[chunk.length - 6] === 0x5a && chunk.readUInt32BE(chunk.length - 5) === 5)
        ready = true
      client.write(chunk)
    })
  })
})

afterAll(() => proxy.close())

test('postgres.js: a pooler refusing the first query after the startup (its server down): connect fails, no unhandled rejection, and it connects once the server is back', async () => {
  const watch = watchProcess()
  const sql = postgres(proxy.url, { max: 2, onnotice: () => {}, connect_timeout: 5 })
  try {
    failing = true
    const error = await EntityManager.connect(sql, { flushTimeoutMs: 3000 }).catch((e: unknown) => e)
    expect(isPipeflushError(error), String(error)).toBe(true)
    // The pooler's reason, as before the fix (when the process then ended).
    expect(isPipeflushError(error, 'CONNECTION_LOST'), String(error)).toBe(true)
    expect(String(error)).toContain('server_login_retry')
    await new Promise((r) => setTimeout(r, 300))
    failing = false
    const em = await EntityManager.connect(sql, { flushTimeoutMs: 3000 })
    expect(await em.fork().select({ text: 'select 1 as n', params: [] })).toEqual([{ n: 1 }])
  } finally {
    await sql.end({ timeout: 1 })
  }
  await watch.assertClean()
})
