import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { counted } from './fixtures/counted.ts'
import { connectOn, schemaOf as schemaFor } from './fixtures/schema-client.ts'

// Get-or-create on a table keyed by a uuid the server defaults (`uuid primary key default
// gen_random_uuid()`, Drizzle's `uuid().primaryKey().defaultRandom()`): an upserted row leaving its key
// out gets a uuid v7 as a created one does, and keeps the stored key when its conflict key exists.
const db = useTestDatabase()

function schemaOf(driver: DriverName): string {
  return schemaFor('upsuuid', driver)
}

beforeAll(async () => {
  for (const driver of TEST_DRIVERS) {
    const schema = schemaOf(driver)
    await db.sql.unsafe(`
create schema "${schema}";
create table "${schema}".label (id uuid primary key default gen_random_uuid(), name text not null unique,
  color text);
create table "${schema}".post (id uuid primary key default gen_random_uuid(), title text not null,
  label_id uuid not null references "${schema}".label);
insert into "${schema}".label (name, color) values ('old', 'red');
`)
  }
})

async function setup(driver: DriverName) {
  const schema = schemaOf(driver)
  return { ...(await connectOn(db, driver, schema)), schema }
}

async function storedLabels(schema: string): Promise<Record<string, string>> {
  const rows = await db.sql.unsafe(`select id::text, name from "${schema}".label`)
  return Object.fromEntries(rows.map((r) => [r['name'] as string, r['id'] as string]))
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('a new and an existing label upserted, posts referencing them: one round trip, each entity holding the stored key', async () => {
    const { root, counter, schema } = await setup(driver)
    const em = root.fork()
    const old = em.upsert('label', { name: 'old' }, { conflict: ['name'], update: [] })
    const fresh = em.upsert('label', { name: `new-${driver}` }, { conflict: ['name'] })
    const posts = [old, fresh].map((label, i) => em.create('post', { title: `p${i}`, label_id: label }))
    const report = await counted(counter, () => em.flush())
    expect(report).toMatchObject({ roundTrips: 1, upserted: 2, inserted: 2 })
    const ids = await storedLabels(schema)
    expect(old['id']).toBe(ids['old'])
    expect(fresh['id']).toBe(ids[`new-${driver}`])
    expect(old['color']).toBe('red') // the row as stored
    expect(posts.map((p) => p['label_id'])).toEqual([ids['old'], ids[`new-${driver}`]])
    const linked = await db.sql.unsafe(
      `select l.name from "${schema}".post p join "${schema}".label l on l.id = p.label_id order by p.title`,
    )
    expect(linked.map((r) => r['name'])).toEqual(['old', `new-${driver}`])
    expect([em.stateOf(old), em.stateOf(fresh)]).toEqual(['managed', 'managed'])
    // Managed under the stored key: a load finds the same entity without a query.
    counter.reset()
    expect(await em.load('label', ids['old'])).toBe(old)
    expect(counter.read().roundTrips).toBe(0)
    expect((await em.flush()).statements).toBe(0)
  })

  test('a key given to the upsert is written when the row is new, and left as stored when it exists', async () => {
    const { root, schema } = await setup(driver)
    const em = root.fork()
    const given = '0190f0a0-0000-7000-8000-000000000001'.replace('1', driver === 'pg' ? '2' : '3')
    const fresh = em.upsert('label', { id: given, name: `given-${driver}` }, { conflict: ['name'] })
    const old = em.upsert('label', { id: given.replace('8000', '9000'), name: 'old' }, { conflict: ['name'] })
    await em.flush()
    const ids = await storedLabels(schema)
    expect(ids[`given-${driver}`]).toBe(given)
    expect(fresh['id']).toBe(given)
    expect(old['id']).toBe(ids['old'])
  })
})
