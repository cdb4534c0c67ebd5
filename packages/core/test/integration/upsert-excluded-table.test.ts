import { EntityManager } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// An upsert into a table named `excluded` (found by an outside probe): `on conflict ... do update`
// names the row proposed `excluded`, so naming the stored row by the table's name was ambiguous
// (42P09) and every upsert of the table failed, conflicting or not. Its insert now aliases the table.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create schema uex;
    create table uex."excluded" (id serial primary key, name text not null unique, v int,
      version int not null default 1);
    create table uex.uses (id serial primary key, excluded_id int not null references uex."excluded");
  `)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each([
    ['updating nothing', []],
    ['updating v', ['v']],
    ['the default update list', undefined],
  ] as const)(
    'upserts into a table named "excluded", %s: inserted, then updated, a reference looked up',
    async (_, update) => {
      const { client } = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(client, { schemas: ['uex'], versionColumn: 'version' })
      const name = `${driver}-${update === undefined ? 'default' : update.join('') || 'none'}`
      const spec = update === undefined ? { conflict: ['name'] } : { conflict: ['name'], update: [...update] }
      for (const v of [1, 2]) {
        const em = root.fork()
        const row = em.upsert('uex.excluded', { name, v }, spec)
        em.create('uex.uses', { excluded_id: row })
        const report = await em.flush()
        expect(report).toMatchObject({ upserted: 1, inserted: 1 })
        const [stored] = await db.sql.unsafe<{ id: number; v: number; version: number }[]>(
          `select id, v, version from uex."excluded" where name = $1`,
          [name],
        )
        expect(row['id']).toBe(stored!.id)
        // Updating v writes it and increments the version; updating nothing keeps both.
        const updates = update === undefined || update.length > 0
        expect(stored).toMatchObject({ v: v === 2 && !updates ? 1 : v, version: v === 2 && updates ? 2 : 1 })
      }
      const links = await db.sql.unsafe<{ n: number }[]>(
        `select count(*)::int as n from uex.uses u join uex."excluded" e on e.id = u.excluded_id where e.name = $1`,
        [name],
      )
      expect(links[0]!.n).toBe(2)
    },
  )
})
