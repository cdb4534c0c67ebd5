import { defineSchema, EntityManager } from '@pipeflush/core'
import { freePort } from '@pipeflush/testkit'
import { TEST_DRIVERS, type TestDatabase, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterEach, beforeAll, describe, expect, test } from 'vitest'
import { expectPoolFree, settleWithin, watchProcess } from './support.ts'
import { openTrackedClient } from './tracked-client.ts'

// docs/guarantees.md: when no connection can be opened, a flush fails naming host and port, after the
// driver's connect timeout at the latest: HOST_UNREACHABLE when nothing answers at that address, else
// CONNECTION_LOST (every new connection cut).
// Fails on postgres.js when every new connection is reset: "could not get a connection (read
// ECONNRESET)", without the address.

const db = useTestDatabase()
const CONNECT_TIMEOUT_S = 2
const schema = defineSchema({ gizmo: { columns: { id: 'int8', name: 'text' }, primaryKey: ['id'] } })
let nextId = 1

beforeAll(async () => {
  await db.sql.unsafe('create table gizmo (id int8 primary key, name text not null)')
})

afterEach(async () => {
  await db.proxy.clearToxics()
})

interface Case {
  readonly name: string
  /** The URL the client uses, and the `host:port` the error must name. */
  readonly target: (db: TestDatabase) => Promise<{ url: string; address: string }>
  readonly fault?: (db: TestDatabase) => Promise<void>
  /** The error's code (default `CONNECTION_LOST`). */
  readonly code?: string
}

const proxied = async (d: TestDatabase) => ({ url: d.proxiedUrl, address: `${d.proxy.host}:${d.proxy.port}` })

const CASES: readonly Case[] = [
  {
    name: 'the server is gone (nothing listens on the port)',
    target: async (d) => {
      const port = await freePort()
      const url = new URL(d.url)
      url.hostname = '127.0.0.1'
      url.port = String(port)
      return { url: url.toString(), address: `127.0.0.1:${port}` }
    },
    code: 'HOST_UNREACHABLE',
  },
  {
    name: 'every new connection is reset on its first byte',
    target: proxied,
    fault: (d) => d.proxy.addToxic('reset_peer', { timeout: 0 }, { stream: 'upstream' }).then(() => {}),
  },
  {
    name: 'every new connection stalls (its bytes are dropped)',
    target: proxied,
    fault: (d) => d.proxy.addToxic('timeout', { timeout: 0 }, { stream: 'upstream' }).then(() => {}),
  },
]

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each(CASES.map((c) => [c.name, c] as const))(
    '%s: a coded error naming host and port, within the connect timeout, then the same client flushes once the network is back',
    async (_name, { target, fault, code }) => {
      const { url, address } = await target(db)
      const c = openTrackedClient(driver, url, { max: 1, connectTimeoutSeconds: CONNECT_TIMEOUT_S })
      const watch = watchProcess()
      try {
        // A declared schema: connect does no I/O, the flush opens the connection.
        const root = await EntityManager.connect(c.client, { schema, prepare: true, flushTimeoutMs: 10_000 })
        await fault?.(db)
        const em = root.fork()
        const id = nextId++
        const stored = async () =>
          (await db.sql<{ n: number }[]>`select count(*)::int as n from gizmo where id = ${id}`)[0]!.n
        em.create('gizmo', { id, name: `${driver}` })
        const result = await settleWithin(em.flush(), 15_000)
        const error = result.error
        expect((error as { code?: unknown }).code, String(error)).toBe(code ?? 'CONNECTION_LOST')
        expect.soft((error as Error).message, 'the error names where it tried').toContain(address)
        expect(result.ms).toBeLessThan(CONNECT_TIMEOUT_S * 1000 + 1000)
        expect(em.pending.inserts).toBe(1)
        expect(await stored()).toBe(0)
        if (fault) {
          await db.proxy.clearToxics()
          const again = await settleWithin(em.flush(), 10_000, 'the retry')
          expect(again.error, 'the retry succeeds').toBeUndefined()
          expect(await stored()).toBe(1)
          await expectPoolFree(c, 1)
        }
        await watch.assertClean()
      } finally {
        watch.dispose()
        await c.end()
      }
    },
  )
})
