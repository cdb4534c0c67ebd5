import { defineSchema, EntityManager } from '@pipeflush/core'
import { freePort } from '@pipeflush/testkit'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { describe, expect, test } from 'vitest'
import { settleWithin, watchProcess } from './support.ts'
import { openTrackedClient } from './tracked-client.ts'

// The application's end of its client settles at once after pipeflush could not open a connection (a
// wrong password, a database that does not exist, TLS refused, nothing listening). On postgres.js a
// request rejected while its connection opened stays in its queue, and the connection opens once more
// for it: an end asked before that opening was over waited for that connection forever.
const db = useTestDatabase()

/** Each case: what the URL is made to say (`url` changes it). */
const REFUSALS = [
  {
    name: 'a wrong password',
    code: 'LOGIN_FAILED',
    url: async (u: URL) => {
      u.password = 'wrong'
    },
  },
  {
    name: 'a database that does not exist',
    code: 'DATABASE_NOT_FOUND',
    url: async (u: URL) => {
      u.pathname = '/nope'
    },
  },
  {
    name: 'TLS required of a server without it',
    code: 'TLS_FAILED',
    url: async (u: URL) => {
      u.searchParams.set('sslmode', 'require')
    },
  },
  {
    name: 'nothing listening at the address',
    code: 'HOST_UNREACHABLE',
    url: async (u: URL) => {
      u.port = String(await freePort())
    },
  },
] as const

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each(REFUSALS.map((r) => [r.name, r] as const))(
    '%s: connect fails with its code, and the client ends at once',
    async (_name, { code, url }) => {
      const u = new URL(db.url)
      await url(u)
      const c = openTrackedClient(driver, u.toString(), { max: 2, connectTimeoutSeconds: 2 })
      const watch = watchProcess()
      try {
        const connecting = await settleWithin(EntityManager.connect(c.client), 10_000, 'connect')
        expect((connecting.error as { code?: string } | undefined)?.code).toBe(code)
        // The application's own end, as it calls it: postgres.js's sql.end() (no timeout), pg's pool.end().
        const ended = await settleWithin((c.client as { end(): Promise<void> }).end(), 3_000, 'the end')
        expect(ended.error).toBeUndefined()
        expect(ended.ms).toBeLessThan(1_000)
        await watch.assertClean()
      } finally {
        watch.dispose()
      }
    },
  )
})

// A flush that found every new connection reset (after the idle ones closed), then the application's
// end, the network still down.
describe.each(TEST_DRIVERS)('%s, every new connection reset', (driver) => {
  test('the flush fails CONNECTION_LOST, and the client ends within its bound', async () => {
    const c = openTrackedClient(driver, db.proxiedUrl, { max: 2, connectTimeoutSeconds: 2 })
    const watch = watchProcess()
    try {
      const root = await EntityManager.connect(c.client, {
        schema: defineSchema({ gizmo: { columns: { id: 'int8' }, primaryKey: ['id'] } }),
        prepare: true,
      })
      await db.proxy.addToxic('reset_peer', { timeout: 0 }, { stream: 'upstream' })
      const em = root.fork()
      em.create('gizmo', { id: 1 })
      const flushed = await settleWithin(em.flush(), 10_000)
      expect((flushed.error as { code?: string } | undefined)?.code).toBe('CONNECTION_LOST')
      const ended = await settleWithin((c.client as { end(): Promise<void> }).end(), 5_000, 'the end')
      expect(ended.error).toBeUndefined()
      expect(ended.ms).toBeLessThan(2_500)
      await watch.assertClean()
    } finally {
      watch.dispose()
      await db.proxy.clearToxics()
    }
  })
})

// The end is bounded only while postgres.js may still open for the rejected request: later, the
// application's own query runs to its end (it was cut at 2 s for 30 s after any such rejection).
describe('postgres.js, after a rejected opening', () => {
  test("the application's own long query, sent once the database exists, outlives its end", async () => {
    const name = `late_${Date.now() % 100000}`
    const u = new URL(db.url)
    u.pathname = `/${name}`
    const c = openTrackedClient('postgres.js', u.toString(), { max: 1, connectTimeoutSeconds: 2 })
    const watch = watchProcess()
    try {
      const connecting = await settleWithin(EntityManager.connect(c.client), 10_000, 'connect')
      expect((connecting.error as { code?: string } | undefined)?.code).toBe('DATABASE_NOT_FOUND')
      await db.sql.unsafe(`create database ${name}`)
      const sql = c.client as { unsafe(text: string): Promise<unknown>; end(): Promise<void> }
      await sql.unsafe('select 1')
      const sleeping = settleWithin(sql.unsafe('select pg_sleep(2.5)'), 10_000, 'the query')
      const ended = await settleWithin(sql.end(), 10_000, 'the end')
      expect(ended.error).toBeUndefined()
      expect((await sleeping).error).toBeUndefined()
      await watch.assertClean()
    } finally {
      watch.dispose()
      await db.sql.unsafe(`drop database if exists ${name} with (force)`)
    }
  })
})
