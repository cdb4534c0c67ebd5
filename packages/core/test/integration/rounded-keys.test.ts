import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, beforeEach, describe, expect, test } from 'vitest'

// A primary key whose column rounds what it stores (numeric(5,2), timestamptz(0), timestamp(1)): a
// new row given a more precise key was inserted rounded, and the unit of work, which kept the key as
// given, could neither update nor remove it (OPTIMISTIC_LOCK, "changed or deleted by another
// transaction", though no one touched it), and a find gave a second entity for the row (found by an
// outside probe). Such a key is now INVALID_VALUE before anything is sent.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table rk_num (k numeric(5,2) primary key, v text);
    create table rk_tz (k timestamptz(0) primary key, v text);
    create table rk_ts (k timestamp(1) primary key, v text);
  `)
})

beforeEach(async () => {
  await db.sql.unsafe('truncate rk_num, rk_tz, rk_ts')
})

const cases = [
  { table: 'rk_num', rounded: '1.234', exact: '1.230', stored: '1.23' },
  {
    table: 'rk_tz',
    rounded: new Date('2024-01-01T00:00:00.678Z'),
    exact: new Date('2024-01-01T00:00:01Z'),
    stored: '2024-01-01 00:00:01+00',
  },
  {
    table: 'rk_ts',
    rounded: new Date('2024-01-01T00:00:00.67Z'),
    exact: new Date('2024-01-01T00:00:00.6Z'),
    stored: '2024-01-01 00:00:00.6',
  },
] as const

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each(cases)(
    '$table: a new row keyed more precisely than the column stores is INVALID_VALUE, nothing sent; keyed as stored, it is updated and removed',
    async ({ table, rounded, exact, stored }) => {
      const { client, counter } = db.client(driver, { max: 1 })
      await db.sql.unsafe(`set timezone to 'UTC'`)
      const root = await EntityManager.connect(client)
      const em = root.fork()
      const row = em.create(table, { k: rounded, v: 'a' })
      counter.reset()
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'INVALID_VALUE'), String(error)).toBe(true)
      expect(String(error)).toContain('give the key as it is stored')
      expect(counter.read().roundTrips, 'nothing sent').toBe(0)
      expect(em.pending.inserts, 'the unit of work as it was').toBe(1)
      // Fixed and flushed again: updated and removed by its key.
      row['k'] = exact
      await em.flush()
      row['v'] = 'b'
      await em.flush()
      const [found] = await em.find(table, {})
      expect(found, 'one entity for the row').toBe(row)
      const text = await db.sql.unsafe<{ k: string; v: string }[]>(`select k::text as k, v from ${table}`)
      expect(text).toEqual([{ k: stored, v: 'b' }])
      em.remove(row)
      await em.flush()
      expect(await db.sql.unsafe(`select * from ${table}`)).toEqual([])
    },
  )

  test('a find by a key the column could not hold is INVALID_VALUE, nothing sent', async () => {
    const { client, counter } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    counter.reset()
    const error = await root
      .fork()
      .load('rk_num', '1.234')
      .catch((e: unknown) => e)
    expect(isPipeflushError(error, 'INVALID_VALUE'), String(error)).toBe(true)
    expect(counter.read().roundTrips).toBe(0)
  })
})
