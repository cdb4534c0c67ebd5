import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// An upsert whose conflict columns are no unique constraint's or index's (a partial unique index, or
// none at all): the server refuses its ON CONFLICT (42P10). The error says what a conflict target
// must be; nothing is committed, and the upsert fixed (another target) flushes.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table unt_partial (id int primary key, email text, active bool not null default true);
    create unique index unt_partial_email on unt_partial (email) where active;
    create table unt_none (id int primary key, code text);
  `)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each([
    ['unt_partial', 'email'],
    ['unt_none', 'code'],
  ] as const)(
    '%s: conflict on (%s), no such target: STATEMENT_FAILED 42P10 saying what a target is; fixed, it flushes',
    async (table, column) => {
      const values = { [column]: `${column} ${driver}` }
      const { client } = db.client(driver, { max: 1 })
      const em = (await EntityManager.connect(client)).fork()
      const id = driver === 'pg' ? 1 : 2
      const row = em.upsert(table, { id, ...values }, { conflict: [column] })
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'STATEMENT_FAILED'), String(error)).toBe(true)
      expect(error).toMatchObject({ sqlState: '42P10', table })
      expect((error as Error).message).toContain(`the upsert's conflict columns (${column}) must be exactly`)
      expect((error as Error).message).toContain('a partial unique index')
      const [{ n }] = (await db.sql.unsafe(`select count(*)::int as n from ${table} where id = ${id}`)) as [
        { n: number },
      ]
      expect(n).toBe(0)
      // The same row upserted on its key instead.
      em.remove(row)
      em.upsert(table, { id, ...values }, { conflict: ['id'] })
      await em.flush()
      const [{ m }] = (await db.sql.unsafe(`select count(*)::int as m from ${table} where id = ${id}`)) as [
        { m: number },
      ]
      expect(m).toBe(1)
    },
  )
})
