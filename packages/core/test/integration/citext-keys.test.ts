import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { connectOn, schemaOf as schemaFor } from './fixtures/schema-client.ts'

// Keys of the citext extension's type, which the server compares ignoring case: a child holding
// 'POETRY' references the row 'Poetry', and the unit of work matches them the same way.
const db = useTestDatabase()

function schemaOf(driver: DriverName): string {
  return schemaFor('citext', driver)
}

beforeAll(async () => {
  await db.sql.unsafe('create extension if not exists citext')
  for (const driver of TEST_DRIVERS) {
    const s = schemaOf(driver)
    await db.sql.unsafe(`
create schema "${s}";
create table "${s}".cat (name citext primary key, v int);
create table "${s}".item (id serial primary key, cat_name citext references "${s}".cat, note text);
insert into "${s}".cat values ('Poetry', 1), ('émile', 4);
insert into "${s}".cat values ('Émile', 3) on conflict do nothing; -- another row where the locale does not fold É
insert into "${s}".item (cat_name, note) values ('POETRY', 'upper'), ('Poetry', 'same');
`)
  }
})

async function setup(driver: DriverName) {
  const schema = schemaOf(driver)
  // citext's operators are in public, where the extension is: on the path, as an application has it.
  return { ...(await connectOn(db, driver, `${schema},public`)), schema }
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('relations over a citext foreign key hold every row the server relates, whatever its case', async () => {
    const { root, counter } = await setup(driver)
    const em = root.fork()
    counter.reset()
    const cat = await em.load('cat', 'Poetry', { with: { items: true } })
    expect(counter.read().roundTrips).toBe(1)
    expect((cat['items'] as { note: string }[]).map((i) => i.note).sort()).toEqual(['same', 'upper'])
    const other = root.fork()
    const items = await other.find('item', {}, { with: { cat: true } })
    expect(items).toHaveLength(2)
    for (const item of items) expect((item['cat'] as { v: number }).v).toBe(1)
    expect(items[0]!['cat']).toBe(items[1]!['cat'])
  })

  test('the rows the server tells apart are as many entities: non-ASCII letters are not folded (the C locale does not)', async () => {
    const { root, schema } = await setup(driver)
    const stored = await db.sql.unsafe(`select count(*)::int as n from "${schema}".cat where v in (3, 4)`)
    const em = root.fork()
    const rows = await em.find('cat', { v: [3, 4] })
    expect(new Set(rows).size).toBe(stored[0]!['n'])
  })

  test('load and find by a key in another case give the one entity; another case assigned is a change', async () => {
    const { root, counter, schema } = await setup(driver)
    const em = root.fork()
    const [found] = await em.find('cat', { name: 'poetry' })
    counter.reset()
    expect(await em.load('cat', 'POETRY')).toBe(found)
    expect(counter.read().roundTrips).toBe(0)
    const fresh = root.fork()
    const loaded = await fresh.load('cat', 'pOeTrY')
    expect(loaded['name']).toBe('Poetry')
    loaded['name'] = 'Poetry' // its own value: no change
    expect(fresh.pending.updates).toBe(0)
    loaded['v'] = 2
    await fresh.flush()
    const [row] = await db.sql.unsafe(`select v from "${schema}".cat where v > 1 and v < 3`)
    expect(row!['v']).toBe(2)
  })
})
