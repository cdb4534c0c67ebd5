import { defineSchema, EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { describe, expect, test, vi } from 'vitest'

// A running process and a migration (found by an outside probe): the schema was read once per client
// for the life of the process, so dropping a column no code used failed every read of its table and
// every insert into it (42703) until a restart, and nothing read the catalog again (connecting again
// on the same client gave the same schema). Now a statement failing because a table changed reads the
// catalog again in the background, and `refreshSchema()` does on demand: the units of work made from
// then on use the tables as they are.
const db = useTestDatabase()

describe.each(TEST_DRIVERS)('%s', (driver) => {
  const t = `sr_${driver.replace(/\W/g, '_')}`

  test('a column dropped under the process: the first failures read the catalog again, then reads and inserts work', async () => {
    await db.sql.unsafe(`
      drop table if exists ${t}_w;
      create table ${t}_w (id int primary key, name text not null, legacy text default 'x');
      insert into ${t}_w values (1, 'a', 'old');
    `)
    const { client } = db.client(driver, { max: 2 })
    const root = await EntityManager.connect(client)
    expect((await root.fork().load(`${t}_w`, 1))['legacy']).toBe('old')
    await db.sql.unsafe(`alter table ${t}_w drop column legacy`)
    const failed = await root
      .fork()
      .find(`${t}_w`, {})
      .catch((e: unknown) => e)
    expect(isPipeflushError(failed, 'STATEMENT_FAILED'), String(failed)).toBe(true)
    expect((failed as { sqlState?: string }).sqlState).toBe('42703')
    // Read again in the background: a unit of work made once it is read finds and inserts.
    await vi.waitFor(async () => expect(await root.fork().find(`${t}_w`, {})).toHaveLength(1), {
      timeout: 5_000,
      interval: 50,
    })
    const em = root.fork()
    const [row] = await em.find(`${t}_w`, {})
    expect(Object.keys(row!).sort()).toEqual(['id', 'name'])
    em.create(`${t}_w`, { id: 2, name: 'b' })
    expect((await em.flush()).inserted).toBe(1)
    expect(root.schema.tables.get(`${t}_w`)?.columnsByName.has('legacy'), 'the root keeps its own').toBe(true)
    // Connecting again on the same client gives the schema read last.
    const again = await EntityManager.connect(client)
    expect(again.schema.tables.get(`${t}_w`)?.columnsByName.has('legacy')).toBe(false)
  })

  test('refreshSchema: a table, a column and an enum label added since connect are known to the units of work made after it', async () => {
    await db.sql.unsafe(`
      drop table if exists ${t}_new; drop table if exists ${t}_e; drop type if exists ${t}_mood;
      create type ${t}_mood as enum ('ok');
      create table ${t}_e (id int primary key, m ${t}_mood);
    `)
    const { client, counter } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    await db.sql.unsafe(`
      alter type ${t}_mood add value 'sad';
      alter table ${t}_e add column note text;
      create table ${t}_new (id int primary key, v text);
    `)
    const before = root.fork()
    expect(() => before.create(`${t}_new`, { id: 1 })).toThrowError(/refreshSchema/)
    before.create(`${t}_e`, { id: 1, m: 'sad' })
    counter.reset()
    const refused = await before.flush().catch((e: unknown) => e)
    expect(isPipeflushError(refused, 'INVALID_VALUE'), String(refused)).toBe(true)
    expect(counter.read().roundTrips, 'nothing sent').toBe(0)

    const schema = await root.refreshSchema()
    expect(schema.tables.has(`${t}_new`)).toBe(true)
    const after = root.fork()
    after.create(`${t}_e`, { id: 2, m: 'sad', note: 'n' })
    after.create(`${t}_new`, { id: 1, v: 'v' })
    expect((await after.flush()).inserted).toBe(2)
    expect(await db.sql.unsafe(`select id, m::text, note from ${t}_e`)).toEqual([
      { id: 2, m: 'sad', note: 'n' },
    ])
    // The unit of work made before keeps its schema: its entities are of its tables.
    await expect(before.flush()).rejects.toMatchObject({ code: 'INVALID_VALUE' })
    // A fork of a fork made before the read gets the new schema too.
    expect(before.fork().schema.tables.has(`${t}_new`)).toBe(true)
  })

  test('refreshSchema on a schema declared in code is INVALID_CONFIG, nothing sent', async () => {
    const { client, counter } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client, {
      schema: defineSchema({ x: { columns: { id: 'int4' }, primaryKey: ['id'] } }),
    })
    counter.reset()
    await expect(root.refreshSchema()).rejects.toMatchObject({ code: 'INVALID_CONFIG' })
    expect(counter.read().roundTrips).toBe(0)
  })
})

// node-postgres in pipeline mode names the selects (the application's own too: `em.select`), prepared
// once per connection. A column added to their table made every later execution on that connection
// fail with 0A000 "cached plan must not change result type", for as long as the connection lived (a
// busy pool never closes it; found by an outside probe). Such a connection is closed now: the next
// read gets one that prepares the statement anew.
describe('pg: a prepared select whose table changed', () => {
  test('fails once on its connection, which is closed; the next read on a new connection gives the new columns', async () => {
    await db.sql.unsafe(`
      drop table if exists sr_plan;
      create table sr_plan (id int primary key, qty int);
      insert into sr_plan values (1, 5);
    `)
    const { client } = db.client('pg', { max: 1 })
    const em = await EntityManager.connect(client)
    const statement = { text: 'select * from sr_plan where id = $1', params: ['1'] }
    expect(await em.select(statement)).toEqual([{ id: 1, qty: 5 }])
    expect(await em.select(statement)).toEqual([{ id: 1, qty: 5 }])
    await db.sql.unsafe('alter table sr_plan add column note text')
    const failed = await em.select(statement).catch((e: unknown) => e)
    expect(isPipeflushError(failed), String(failed)).toBe(true)
    expect((failed as { sqlState?: string }).sqlState).toBe('0A000')
    expect(await em.select(statement)).toEqual([{ id: 1, qty: 5, note: null }])
    expect(await em.select(statement)).toEqual([{ id: 1, qty: 5, note: null }])
  })
})
