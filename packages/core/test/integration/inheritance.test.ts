import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// Tables in an inheritance tree: a child's rows are read through its parent, and written through it
// (an update or delete of the parent reaches the child's rows). A primary key is not inherited, so a
// parent's row and a child's may share a key: a write by that key then matches both, which the row
// check reports as what it is, not as a row changed by another transaction.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table animal (id int primary key, name text not null);
    create table dog (breed text) inherits (animal);
    alter table dog add primary key (id);
  `)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('a child row written through its parent; a key shared by a parent row and a child row fails the write, naming it, nothing committed', async () => {
    const base = driver === 'pg' ? 100 : 200
    await db.sql.unsafe(
      `delete from animal where id between ${base} and ${base + 9};
       insert into animal values (${base}, 'cat');
       insert into dog values (${base + 1}, 'rex', 'collie'), (${base}, 'twin', 'pug')`,
    )
    const c = db.client(driver, { max: 1 })
    try {
      const root = await EntityManager.connect(c.client)
      const em = root.fork()
      const rex = await em.load('animal', base + 1)
      rex['name'] = 'Rex'
      await em.flush()
      expect(await db.sql.unsafe(`select name from dog where id = ${base + 1}`)).toEqual([{ name: 'Rex' }])

      const shared = await em.load('animal', base)
      shared['name'] = 'renamed'
      const failure = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(failure, 'STATEMENT_FAILED'), String(failure)).toBe(true)
      expect((failure as Error).message).toMatch(
        /update on animal matched 2 rows for 1 key\(s\): rows share a key \(a table inheriting from animal holds a row with the same key/,
      )
      expect(await db.sql.unsafe(`select name from animal where id = ${base} order by name`)).toEqual([
        { name: 'cat' },
        { name: 'twin' },
      ])
      expect(em.pending.updates).toBe(1)
    } finally {
      await c.end()
    }
  })
})
