import { defineSchema, EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import type pg from 'pg'
import type postgres from 'postgres'
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

  // Found by an outside probe: a foreign key added after connect is not in the flush's order, so a
  // flush creating the parent and its child inserted the child first (23503) for the life of the process.
  test('a foreign key added: the first flush creating both rows fails 23503, nothing committed, later units insert in its order', async () => {
    await db.sql.unsafe(`
      drop table if exists ${t}_a_child; drop table if exists ${t}_z_parent;
      create table ${t}_z_parent (id int primary key);
      create table ${t}_a_child (id int primary key, parent_id int);
    `)
    const { client } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    await db.sql.unsafe(
      `alter table ${t}_a_child add foreign key (parent_id) references ${t}_z_parent (id) deferrable initially immediate`,
    )
    const both = (id: number) => {
      const em = root.fork()
      em.create(`${t}_z_parent`, { id })
      em.create(`${t}_a_child`, { id, parent_id: id })
      return em.flush()
    }
    const failed = await both(1).catch((e: unknown) => e)
    expect(isPipeflushError(failed, 'CONSTRAINT_VIOLATION'), String(failed)).toBe(true)
    expect((failed as { sqlState?: string }).sqlState).toBe('23503')
    expect(await db.sql.unsafe(`select count(*)::int as n from ${t}_z_parent`)).toEqual([{ n: 0 }])
    await vi.waitFor(async () => expect((await both(2)).inserted).toBe(2), { timeout: 5_000, interval: 50 })
  })

  // Found by an outside probe: a read again took the search path of the connection that answered it,
  // so one pooled connection switched to another tenant's schema (`set search_path` per request) moved
  // every bare table name of the process to that tenant's tables.
  test('a read again keeps the schemas of the first, whatever the search path of the connection answering it', async () => {
    await db.sql.unsafe(`
      drop schema if exists ${t}_ta cascade; drop schema if exists ${t}_tb cascade;
      create schema ${t}_ta; create schema ${t}_tb;
      create table ${t}_ta.accounts (id int primary key, name text);
      create table ${t}_tb.accounts (id int primary key, name text);
    `)
    const { client } = db.client(driver, { max: 1 })
    const run = (text: string) =>
      driver === 'pg' ? (client as pg.Pool).query(text) : (client as postgres.Sql).unsafe(text)
    await run(`set search_path = ${t}_ta`)
    const root = await EntityManager.connect(client)
    expect(root.schema.tables.get('accounts')?.schema).toBe(`${t}_ta`)
    await run(`set search_path = ${t}_tb`)
    const schema = await root.refreshSchema()
    expect(schema.tables.get('accounts')?.schema).toBe(`${t}_ta`)
    const em = root.fork()
    em.create('accounts', { id: 1, name: 'for a' })
    await em.flush()
    expect(
      await db.sql.unsafe(
        `select (select count(*)::int from ${t}_ta.accounts) as a, (select count(*)::int from ${t}_tb.accounts) as b`,
      ),
    ).toEqual([{ a: 1, b: 0 }])
  })

  // A violation of a foreign key the schema knows is the application's (a reference to no row), and
  // a value or name refused before sending is bad input far more often than a migration: neither sends
  // anything more (a test counting a retry's round trips at the socket must see the retry's alone).
  test('a known foreign key violated, a value refused: nothing read again', async () => {
    await db.sql.unsafe(`
      drop table if exists ${t}_kid; drop table if exists ${t}_mom;
      create table ${t}_mom (id int primary key);
      create table ${t}_kid (id int primary key, mom_id int references ${t}_mom (id), code varchar(2));
    `)
    const { client, counter } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    const em = root.fork()
    const kid = em.create(`${t}_kid`, { id: 1, mom_id: 7 })
    counter.reset()
    await expect(em.flush()).rejects.toMatchObject({ code: 'CONSTRAINT_VIOLATION', sqlState: '23503' })
    kid['code'] = 'too long'
    await expect(em.flush()).rejects.toMatchObject({ code: 'INVALID_VALUE' })
    await new Promise((r) => setTimeout(r, 300))
    expect(counter.read().roundTrips, 'the failed flush alone').toBe(1)
    counter.reset()
    kid['code'] = 'ok'
    em.create(`${t}_mom`, { id: 7 })
    expect((await em.flush()).roundTrips).toBe(1)
    expect(counter.read().roundTrips, 'the retry alone').toBe(1)
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
