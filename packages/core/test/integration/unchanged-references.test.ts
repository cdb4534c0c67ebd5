import { EntityManager } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// An entity given as a foreign-key value is resolved to its key at flush, also when the row held that
// key already and nothing is written (a PATCH applying the same author): it stayed the entity, where
// every read of the row gives the key (found by an outside probe, through @pipeflush/drizzle).
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table ur_author (id serial primary key, name text not null);
    create table ur_book (id serial primary key, title text not null, author_id int not null references ur_author);
    insert into ur_author (name) values ('Ada'), ('Grace');
  `)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('the same author assigned: nothing written, the key held after the flush', async () => {
    const { client } = db.client(driver, { max: 2 })
    const root = await EntityManager.connect(client)
    const seed = root.fork()
    const ada0 = await seed.load('ur_author', 1)
    const created = seed.create('ur_book', { title: `Notes-${driver}`, author_id: ada0 })
    await seed.flush()
    const em = root.fork()
    const book = await em.load('ur_book', created['id'])
    const ada = await em.load('ur_author', 1)
    book['author_id'] = ada
    const report = await em.flush()
    expect([report.updated, report.statements]).toEqual([0, 0])
    expect(book['author_id']).toBe(1)
    expect(JSON.stringify(book)).toContain('"author_id":1')
    // beside a flush that writes something else
    book['author_id'] = ada
    em.create('ur_author', { name: `other-${driver}` })
    expect((await em.flush()).updated).toBe(0)
    expect(book['author_id']).toBe(1)
    // another author is written and resolved, as before
    book['author_id'] = await em.load('ur_author', 2)
    expect((await em.flush()).updated).toBe(1)
    expect(book['author_id']).toBe(2)
  })
})
