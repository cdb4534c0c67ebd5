import { EntityManager } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterEach, beforeAll, describe, expect, test } from 'vitest'
import { expectPoolFree, settleWithin, sleep, watchProcess } from './support.ts'

const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table thing (id bigserial primary key, name text not null);
    create table shape (id bigserial primary key, sides int not null);
    create table blob (id bigserial primary key, tag text not null default '', body text not null);
    -- A row of "slow" sleeps in its insert: the flush under test waits on the server.
    create table slow (id bigserial primary key, ms int not null);
    create function slow_sleep() returns trigger language plpgsql as $$
      begin perform pg_sleep(new.ms / 1000.0); return new; end $$;
    create trigger slow_sleep before insert on slow for each row execute function slow_sleep();
    create table uniq (id bigserial primary key, code text not null unique);
    create table pipeflush_flush_log (flush_id uuid primary key, committed boolean not null, at timestamptz not null default now());
  `)
})

afterEach(async () => {
  await db.proxy.clearToxics()
})

async function count(name: string): Promise<number> {
  const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from thing where name = ${name}`
  return row!.n
}

/** Runs `body`, then asserts the process saw no uncaught exception or unhandled rejection meanwhile. */
async function watched(body: () => Promise<void>): Promise<void> {
  const watch = watchProcess()
  try {
    await body()
    await watch.assertClean()
  } finally {
    watch.dispose()
  }
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  // Fails on postgres.js (pool of 1): the replacement connection stays idle while the waiting flush
  // sits in `sql.reserve()` until its own flushTimeoutMs (FLUSH_TIMEOUT, "still waiting for a
  // connection"); the adapter asks again only after a failed connection attempt.
  test('a flush waiting for the only connection gets its replacement at once when a timed-out flush has it terminated, not at its own flushTimeoutMs', () =>
    watched(async () => {
      const c = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(c.client, { pipeline: 'burst', idBlockSize: 100 })
      const warm = root.fork()
      warm.create('thing', { name: `warm-${driver}` })
      await warm.flush()

      // The first flush sleeps on the server past its timeout: its connection is terminated.
      const stalled = root.fork({ flushTimeoutMs: 400 })
      stalled.create('slow', { ms: 1500 })
      const first = stalled.flush()
      first.catch(() => {})
      await sleep(50)
      // This one waits for the only connection, which the first flush's timeout terminates.
      const waiting = root.fork({ flushTimeoutMs: 8000 })
      waiting.create('thing', { name: `waiting-${driver}` })
      const second = waiting.flush()
      second.catch(() => {})
      const a = await settleWithin(first, 5000)
      expect(a.error).toMatchObject({ code: 'COMMIT_OUTCOME_UNKNOWN' })
      expect(a.ms).toBeLessThan(1000)
      const b = await settleWithin(second, 10_000)
      expect.soft(b.error, 'the waiting flush gets a connection').toBeUndefined()
      expect.soft(b.ms).toBeLessThan(4000)
      if (b.ok) expect(b.value?.connected, 'on a new connection').toBe(true)
      else expect((await settleWithin(waiting.flush(), 5000)).error, 'its retry').toBeUndefined()
      expect(await count(`waiting-${driver}`)).toBe(1)
      await expectPoolFree(c, 1)
    }))

  test('a flush leaves nothing running on its connection: no write after it settled, and the next flush is one round trip, as the socket counts', () =>
    watched(async () => {
      const c = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(c.client, { pipeline: 'burst', idBlockSize: 100 })
      await db.proxy.setLatency(60)
      // New statement shapes on this connection (the ids were fetched when connecting).
      const em = root.fork()
      em.create('thing', { name: `new-shapes-${driver}` })
      em.create('shape', { sides: 3 })
      const report = await em.flush()
      expect(report).toMatchObject({ idFetch: false, roundTrips: 1 })
      c.counter.reset()
      await sleep(300)
      expect(c.counter.read().writes, 'writes after the flush settled').toBe(0)
      const next = root.fork()
      next.create('thing', { name: `after-${driver}` })
      next.create('shape', { sides: 4 })
      c.counter.reset()
      const after = (await settleWithin(next.flush(), 5000)).value!
      expect(after.roundTrips).toBe(1)
      expect(c.counter.read().roundTrips).toBe(1)
      expect(await count(`after-${driver}`)).toBe(1)
    }))

  test('a flush timeout does not fire for a flush that finished: no late terminate, no late error', () =>
    watched(async () => {
      const c = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(c.client, { pipeline: 'burst', flushTimeoutMs: 200 })
      for (let i = 0; i < 5; i++) {
        const em = root.fork()
        em.create('thing', { name: `quick-${driver}-${i}` })
        await em.flush()
      }
      const connections = c.counter.read().connections
      await sleep(400)
      const [row] = await c.query<{ one: number }>('select 1 as one')
      expect(Number(row?.one)).toBe(1)
      expect(c.counter.read().connections, 'no connection was replaced').toBe(connections)
    }))

  test('a connection cut while the COMMIT still waits in the driver (a 16 MB burst fills the socket) settles at once, not at the timeout', () =>
    watched(async () => {
      const c = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(c.client, {
        pipeline: 'burst',
        flushLog: 'pipeflush_flush_log',
        flushTimeoutMs: 10_000,
      })
      const warm = root.fork()
      warm.create('blob', { body: 'warm' })
      await warm.flush()
      // Slow the upstream so that the socket cannot take the whole write at once (the driver then
      // queues the rest, COMMIT included, behind it), and cut the connection after 100 KB.
      await db.proxy.addToxic('bandwidth', { rate: 500 }, { stream: 'upstream' })
      await db.proxy.addToxic('limit_data', { bytes: 100_000 }, { stream: 'upstream' })
      const em = root.fork()
      em.create('blob', { tag: driver, body: 'x'.repeat(16_000_000) })
      const result = await settleWithin(em.flush(), 12_000)
      await db.proxy.clearToxics()
      expect(result.error).toMatchObject({ code: 'COMMIT_OUTCOME_UNKNOWN' })
      expect(result.ms).toBeLessThan(3000)
      const checker = await EntityManager.connect(db.sql, { flushLog: 'pipeflush_flush_log' })
      expect(await checker.wasCommitted((result.error as { flushId: string }).flushId)).toBe(false)
      const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from blob where tag = ${driver}`
      expect(row?.n).toBe(0)
      await expectPoolFree(c, 1)
      expect((await settleWithin(em.flush(), 10_000)).error).toBeUndefined()
    }))

  test('a statement failing in a burst commits nothing: CONSTRAINT_VIOLATION naming the constraint, in one round trip (pg: the pipelined COMMIT answers ROLLBACK; postgres.js: one implicit transaction)', async () => {
    const c = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(c.client, { pipeline: 'burst', idBlockSize: 100 })
    const warm = root.fork()
    warm.create('uniq', { code: `warm-${driver}` })
    warm.create('thing', { name: `warm-${driver}` })
    await warm.flush()
    const em = root.fork()
    em.create('thing', { name: `rolled back-${driver}` })
    em.create('uniq', { code: `warm-${driver}` }) // duplicate
    c.counter.reset()
    const error = await em.flush().catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'CONSTRAINT_VIOLATION', constraint: 'uniq_code_key', table: 'uniq' })
    expect(c.counter.read().roundTrips).toBe(1)
    expect(await count(`rolled back-${driver}`)).toBe(0)
    await expectPoolFree(c, 1)
  })
})

// node-postgres's pool has a wait of its own, `connectionTimeoutMillis`, which covers waiting in its
// queue: postgres.js has none. Bug (outside probe): that wait given up, with every connection in use
// and the server fine, was CONNECTION_LOST "could not connect to host:port".
describe('pg', () => {
  test("the pool's own wait for a free connection given up: QUERY_TIMEOUT and FLUSH_TIMEOUT saying so, not a connection failure", () =>
    watched(async () => {
      const c = db.client('pg', { max: 1, pg: { connectionTimeoutMillis: 200 } })
      const root = await EntityManager.connect(c.client, { pipeline: 'burst', idBlockSize: 100 })
      const warm = root.fork()
      warm.create('thing', { name: 'pool wait warm' })
      await warm.flush()
      const busy = c.query('select pg_sleep(1.5)') // the pool's only connection, for 1.5 s
      const em = root.fork()
      em.create('thing', { name: 'pool wait' })
      const [read, flush] = await Promise.all([
        settleWithin(em.find('thing', { name: 'pool wait warm' }), 5_000),
        settleWithin(em.flush(), 5_000),
      ])
      for (const [result, code, what] of [
        [read, 'QUERY_TIMEOUT', 'Reading thing'],
        [flush, 'FLUSH_TIMEOUT', 'The flush'],
      ] as const) {
        expect(result.error).toMatchObject({ code })
        const message = (result.error as Error).message
        expect(message).toMatch(`${what} got no connection: every connection of the pool stayed in use`)
        expect(message).toMatch('connectionTimeoutMillis (200 ms)')
        expect(message).not.toMatch(/could not connect/)
        expect(result.ms).toBeLessThan(1_200)
      }
      await busy
      expect(await count('pool wait')).toBe(0)
      expect(em.pending.inserts).toBe(1)
      expect((await em.flush()).inserted).toBe(1)
      expect(await count('pool wait')).toBe(1)
      await c.end()
    }))
})
