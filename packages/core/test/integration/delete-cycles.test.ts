import { EntityManager, type PipelineMode } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// Rows referencing each other through a nullable foreign key one way and a NOT NULL one the other
// (a person's best friend is a pet, a pet's owner a person): created in one flush (the nullable key
// inserted as NULL, then set by a fix-up), and removed in one flush too (that key set to NULL first
// in the rows that hold it, then the deletes in the order the other key asks).

const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']

beforeAll(async () => {
  await db.sql.unsafe(`
    create table person (id bigserial primary key, name text not null, best_friend_id bigint, version int not null default 1);
    create table pet (id bigserial primary key, name text not null, owner_id bigint not null references person);
    alter table person add constraint person_best_friend_fk foreign key (best_friend_id) references pet;
  `)
})

async function exists(name: string): Promise<number> {
  const [row] = await db.sql<{ n: number }[]>`
    select (select count(*) from person where name = ${name}) + (select count(*) from pet where name = ${name}) as n`
  return Number(row!.n)
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  describe.each(modes)('%s', (mode) => {
    test('both rows of the cycle removed in one flush: the key set to NULL first, nothing left', async () => {
      const { client } = db.client(driver, { max: 2 })
      const root = await EntityManager.connect(client, { pipeline: mode, versionColumn: 'version' })
      const name = `cycle-${driver}-${mode}`
      const seed = root.fork()
      const person = seed.create('person', { name })
      const pet = seed.create('pet', { name, owner_id: person })
      person['best_friend_id'] = pet
      await seed.flush()
      expect(await exists(name)).toBe(2)
      const em = root.fork()
      const [p] = await em.find('person', { id: person['id'] })
      const [q] = await em.find('pet', { id: pet['id'] })
      em.remove(p!)
      em.remove(q!)
      expect(
        em
          .plan()
          .waves.flat()
          .map((s) => `${s.kind} ${s.table}${s.fixup ? ' (fix-up)' : ''}`),
      ).toEqual(['update person (fix-up)', 'delete pet', 'delete person'])
      const report = await em.flush()
      expect([report.deleted, report.statements]).toEqual([2, 3])
      expect(await exists(name)).toBe(0)
      expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
    })

    test("removed rows of the cycle that do not reference each other's: no fix-up", async () => {
      const { client } = db.client(driver, { max: 2 })
      const root = await EntityManager.connect(client, { pipeline: mode, versionColumn: 'version' })
      const name = `apart-${driver}-${mode}`
      const seed = root.fork()
      const person = seed.create('person', { name })
      const pet = seed.create('pet', { name, owner_id: person })
      const friend = seed.create('pet', { name: `${name} friend`, owner_id: person })
      const other = seed.create('person', { name: `${name} other` })
      other['best_friend_id'] = friend
      await seed.flush()
      // `other` keeps `friend` as its best friend; `person` names none.
      const em = root.fork()
      const [q] = await em.find('pet', { id: pet['id'] })
      const [o] = await em.find('person', { id: other['id'] })
      em.remove(q!)
      em.remove(o!)
      expect(
        em
          .plan()
          .waves.flat()
          .map((s) => `${s.kind} ${s.table}${s.fixup ? ' (fix-up)' : ''}`),
      ).toEqual(['delete pet', 'delete person'])
      expect((await em.flush()).statements).toBe(2)
      const [left] = await db.sql<
        { n: number }[]
      >`select count(*)::int as n from pet where id = ${pet['id'] as string}`
      expect(left!.n).toBe(0)
    })
  })
})
