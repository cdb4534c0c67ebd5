import { useTestDatabase } from '@pipeflush/testkit/vitest'
import postgres from 'postgres'
import { beforeAll, describe, expect, test } from 'vitest'
import { createRoundTripCounter, freePort } from '../../src/index.ts'

const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(
    'create table a (id int primary key); create table b (id int primary key); create table c (id int primary key)',
  )
})

/** Three inserts with a parameter each: prepared after their first use on a connection. */
const inserts = (sql: postgres.Sql | postgres.TransactionSql, id: number) => [
  sql`insert into a values (${id})`,
  sql`insert into b values (${id})`,
  sql`insert into c values (${id})`,
]

describe('round-trip counter (counted at the socket)', () => {
  test('select 1 is one round trip', async () => {
    const { sql, counter } = db.connect({ max: 1 })
    await sql`select 1` // connect
    counter.reset()
    await sql`select 1`
    expect(counter.read().roundTrips).toBe(1)
    expect(counter.read().bytesIn).toBeGreaterThan(0)
    expect(counter.read().bytesOut).toBeGreaterThan(0)
  })

  test('sql.begin with 3 warm statements awaited one by one is 5', async () => {
    const { sql, counter } = db.connect({ max: 1 })
    await sql.begin(async (tx) => {
      for (const q of inserts(tx, 1)) await q // warm
    })
    counter.reset()
    await sql.begin(async (tx) => {
      for (const q of inserts(tx, 2)) await q
    })
    expect(counter.read().roundTrips).toBe(5)
  })

  test('sql.begin with 3 warm statements in one Promise.all is 3', async () => {
    const { sql, counter } = db.connect({ max: 1 })
    await sql.begin((tx) => Promise.all(inserts(tx, 3)))
    counter.reset()
    await sql.begin((tx) => Promise.all(inserts(tx, 4)))
    expect(counter.read().roundTrips).toBe(3)
  })

  test('a reserved connection sending begin, 3 warm statements and commit without awaiting is 1', async () => {
    const { sql, counter } = db.connect({ max: 1 })
    const burst = async (id: number) => {
      const r = await sql.reserve()
      try {
        const [, , , , commit] = await Promise.all([r`begin`, ...inserts(r, id), r`commit`])
        return commit
      } finally {
        r.release()
      }
    }
    await burst(5) // connect and warm
    counter.reset()
    const commit = await burst(6)
    expect(commit?.command).toBe('COMMIT')
    expect(counter.read().roundTrips).toBe(1)
  })

  test('a cold statement stops the pipeline: the counter sees the extra round trip', async () => {
    const { sql, counter } = db.connect({ max: 1 })
    await sql`select 1`
    counter.reset()
    await sql.begin((tx) => Promise.all(inserts(tx, 7)))
    // begin, then each cold insert is described first (1 round trip each) before it executes, then commit
    expect(counter.read().roundTrips).toBeGreaterThan(3)
  })

  test('agrees with the clock under a 20 ms latency toxic', async () => {
    const { sql, counter } = db.connect({ max: 1 })
    await sql.begin((tx) => Promise.all(inserts(tx, 8)))
    await db.proxy.setLatency(20)
    try {
      const time = async (fn: () => Promise<unknown>) => {
        counter.reset()
        const t0 = performance.now()
        await fn()
        return { ms: performance.now() - t0, roundTrips: counter.read().roundTrips }
      }
      const one = await time(() => sql`select 1`)
      const five = await time(() =>
        sql.begin(async (tx) => {
          for (const q of inserts(tx, 9)) await q
        }),
      )
      expect(one.roundTrips).toBe(1)
      expect(five.roundTrips).toBe(5)
      // Each round trip waits at least the injected 20 ms, and the clock cannot show more waits than counted
      expect(one.ms).toBeGreaterThanOrEqual(19)
      expect(five.ms).toBeGreaterThanOrEqual(5 * 19)
      expect(five.ms).toBeLessThan(5 * 20 + 4 * 20) // well under 9 round trips' worth
    } finally {
      await db.proxy.setLatency(0)
    }
  })
})

describe('round-trip counter with a multi-host URL', () => {
  test('a first host that refuses connections: each connection goes on to the next host, as postgres.js does', async () => {
    const url = new URL(db.url)
    const closed = await freePort()
    const hosts = `127.0.0.1:${closed},${url.hostname}:${url.port}`
    const counter = createRoundTripCounter()
    const sql = postgres(`postgres://${url.username}:${url.password}@${hosts}${url.pathname}`, {
      max: 2,
      connect_timeout: 2,
      onnotice: () => {},
      socket: counter.socket,
    } as postgres.Options<Record<string, postgres.PostgresType>>)
    try {
      const answered = await Promise.race([
        Promise.all([sql`select 1 as one`, sql`select 1 as one`]),
        new Promise((resolve) => setTimeout(() => resolve('no answer within 5 s'), 5000)),
      ])
      expect(answered).toEqual([[{ one: 1 }], [{ one: 1 }]])
      counter.reset()
      await sql`select 1`
      expect(counter.read().roundTrips).toBe(1)
    } finally {
      await sql.end({ timeout: 1 })
    }
  })
})
