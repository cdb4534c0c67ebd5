import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { counted } from './fixtures/counted.ts'
import { connectOn, schemaOf as schemaFor } from './fixtures/schema-client.ts'

// A row removed and a new one created with the same key in one unit of work (replacing a link row,
// say): the flush deletes the old row before inserting the new one, in its one round trip.
const db = useTestDatabase()

function schemaOf(driver: DriverName): string {
  return schemaFor('replace', driver)
}

beforeAll(async () => {
  for (const driver of TEST_DRIVERS) {
    const s = schemaOf(driver)
    await db.sql.unsafe(`
create schema "${s}";
create table "${s}".book (id int primary key, title text not null);
create table "${s}".tag (id int primary key, name text not null);
create table "${s}".book_tag (book_id int references "${s}".book, tag_id int references "${s}".tag,
  note text, primary key (book_id, tag_id));
insert into "${s}".book values (1, 'Dune');
insert into "${s}".tag values (1, 'sf'), (2, 'classic');
insert into "${s}".book_tag values (1, 1, 'old'), (1, 2, 'old');
`)
  }
})

async function setup(driver: DriverName) {
  const schema = schemaOf(driver)
  return { ...(await connectOn(db, driver, schema)), schema }
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('a link row and a keyed row removed and created again with the same keys: one round trip, the new rows stored and managed', async () => {
    const { root, counter, schema } = await setup(driver)
    const em = root.fork()
    const links = await em.find('book_tag', { book_id: 1 })
    const [book] = await em.find('book', { id: 1 })
    for (const link of links) em.remove(link)
    const again = em.create('book_tag', { book_id: 1, tag_id: 1, note: 'new' })
    em.remove(book!)
    const reborn = em.create('book', { id: 1, title: 'Dune Messiah' })
    const report = await counted(counter, () => em.flush())
    expect(report).toMatchObject({ roundTrips: 1, inserted: 2, deleted: 3 })
    const stored = await db.sql.unsafe(`select book_id, tag_id, note from "${schema}".book_tag`)
    expect(stored.map((r) => ({ ...r }))).toEqual([{ book_id: 1, tag_id: 1, note: 'new' }])
    const [b] = await db.sql.unsafe(`select title from "${schema}".book where id = 1`)
    expect(b!['title']).toBe('Dune Messiah')
    expect(em.stateOf(again)).toBe('managed')
    expect(em.stateOf(reborn)).toBe('managed')
    expect(em.stateOf(links[0]!)).toBe('detached')
    expect(em.stateOf(book!)).toBe('detached')
    counter.reset()
    expect(await em.load('book_tag', { book_id: 1, tag_id: 1 })).toBe(again)
    expect(await em.load('book', 1)).toBe(reborn)
    expect(counter.read().roundTrips).toBe(0)
    expect((await em.flush()).statements).toBe(0)
  })

  test('a row removed and upserted again by its key: the delete first, the upserted entity managed after', async () => {
    const { root, counter, schema } = await setup(driver)
    const em = root.fork()
    const [tag] = await em.find('tag', { id: 2 })
    const links = await em.find('book_tag', { tag_id: 2 })
    for (const link of links) em.remove(link)
    em.remove(tag!)
    const again = em.upsert('tag', { id: 2, name: 'classics' }, { conflict: ['id'] })
    const report = await counted(counter, () => em.flush())
    expect(report).toMatchObject({ roundTrips: 1, upserted: 1 })
    const [stored] = await db.sql.unsafe(`select name from "${schema}".tag where id = 2`)
    expect(stored!['name']).toBe('classics')
    expect(em.stateOf(again)).toBe('managed')
    expect(em.stateOf(tag!)).toBe('detached')
    counter.reset()
    expect(await em.load('tag', 2)).toBe(again)
    expect(counter.read().roundTrips).toBe(0)
  })
})
