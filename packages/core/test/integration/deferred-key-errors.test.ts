import { EntityManager, isPipeflushError, type PipelineMode } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// A foreign key checked as the transaction ends (DEFERRABLE INITIALLY DEFERRED) fails at COMMIT. In
// one message (`burst`), the server reports the end of its implicit transaction before the last
// statement's completion, whatever that statement is: the rejection names its statement by its
// constraint, not by the count of statements completed.
const db = useTestDatabase()
const MODES: PipelineMode[] = ['burst', 'waves', 'off']

beforeAll(async () => {
  await db.sql.unsafe(`
    create table dk_parent (id int primary key);
    create table dk_child (id int primary key,
      parent_id int references dk_parent deferrable initially deferred);
    create table dk_other (id int primary key, note text not null);
  `)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each(MODES)(
    '%s: a deferred foreign key refused at COMMIT names the row that holds it, whichever statement came last; nothing committed, the retry commits',
    async (mode) => {
      const base = (driver === 'pg' ? 1000 : 2000) + MODES.indexOf(mode) * 100
      const c = db.client(driver, { max: 1 })
      try {
        const root = await EntityManager.connect(c.client, { pipeline: mode })
        const em = root.fork()
        const child = em.create('dk_child', { id: base, parent_id: base + 99 })
        em.create('dk_other', { id: base, note: 'after the child, last in the message' })
        const failure = await em.flush().catch((e: unknown) => e)
        expect(isPipeflushError(failure, 'CONSTRAINT_VIOLATION'), String(failure)).toBe(true)
        expect(failure).toMatchObject({ table: 'dk_child', constraint: 'dk_child_parent_id_fkey' })
        expect((failure as Error).message).toMatch(/^insert on dk_child violated/)
        const [row] = await db.sql.unsafe<{ n: number }[]>(
          `select (select count(*) from dk_child where id = ${base}) + (select count(*) from dk_other where id = ${base}) as n`,
        )
        expect(Number(row!.n)).toBe(0)
        em.create('dk_parent', { id: base + 99 })
        await em.flush()
        expect(child['parent_id']).toBe(base + 99)
      } finally {
        await c.end()
      }
    },
  )
})

describe('pg, statements named (prepare: true): BEGIN, the statements and COMMIT pipelined', () => {
  test('a deferred foreign key refused at COMMIT names the row that holds it', async () => {
    const c = db.client('pg', { max: 1 })
    try {
      const root = await EntityManager.connect(c.client, { pipeline: 'burst', prepare: true })
      const em = root.fork()
      em.create('dk_child', { id: 3000, parent_id: 3099 })
      em.create('dk_other', { id: 3000, note: 'last' })
      const failure = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(failure, 'CONSTRAINT_VIOLATION'), String(failure)).toBe(true)
      expect(failure).toMatchObject({ table: 'dk_child', constraint: 'dk_child_parent_id_fkey' })
    } finally {
      await c.end()
    }
  })
})
