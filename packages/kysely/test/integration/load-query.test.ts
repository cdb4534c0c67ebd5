import { isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { type ColumnType, type Generated, sql } from 'kysely'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'
import { type DB, DDL } from '../fixtures/db.ts'
import type { Relations } from '../fixtures/relations.ts'

const db = useTestDatabase()

/** A table with one column of each kind whose decoding could go wrong. */
interface Mixed {
  mixed: {
    id: Generated<number>
    i8: string | null
    num: string | null
    f4: number | null
    f8: number | null
    ok: boolean | null
    ch: string | null
    mood: string | null
    day: string | null
    ts: Date | null
    tstz: Date | null
    doc: ColumnType<unknown, unknown, unknown>
    bytes: Buffer | null
    ints: number[] | null
    stamps: (Date | null)[] | null
    days: string[] | null
    docs: unknown[] | null
  }
}

/** Timestamps and dates outside years 1 to 9999, as parameters of a query. */
interface Events {
  ev: { id: number; at: Date; ts: Date; day: string }
}

/** A table another inherits from: its rows and the other's, which may repeat its keys. */
interface Guests {
  guest: { id: number; name: string }
}

/** {@link DB} with a view over `book`, as kysely-codegen lists views among tables. */
interface WithView extends DB {
  cheap_book: { id: string; title: string; price: string }
}

beforeAll(async () => {
  await db.sql.unsafe(DDL)
  await db.sql.unsafe(`
    create view cheap_book as select id, title, price from book where price < 30;
    create type mood as enum ('sad', 'it''s "ok"', 'happy');
    create table mixed (
      id serial primary key, i8 int8, num numeric, f4 float4, f8 float8, ok bool, ch char(6), mood mood,
      day date, ts timestamp, tstz timestamptz, doc jsonb, bytes bytea, ints int4[], stamps timestamp[],
      days date[], docs json[]
    );
    create table ev (id int primary key, at timestamptz not null, ts timestamp not null, day date not null);
    create table guest (id int primary key, name text not null);
    create table guest_more () inherits (guest);
    insert into guest values (1, 'Bea'), (2, 'Al');
    insert into guest_more values (1, 'Bea');
    insert into ev values
      (1, '0500-06-01 00:00:00+00', '0500-06-01 00:00:00', '0500-06-01'),
      (2, 'infinity', 'infinity', 'infinity'),
      (3, '0044-03-15 00:00:00+00 BC', '0044-03-15 00:00:00 BC', '0044-03-15 BC'),
      (4, '10000-01-01 12:30:05.007+00', '10000-01-01 12:30:05.007', '10000-01-01'),
      (5, '0001-06-01 00:00:00+00 BC', '0001-06-01 00:00:00 BC', '0001-06-01 BC');
  `)
})

/** Both drivers run these tests on one database: each block starts from empty tables. */
const emptyTables = () => db.sql.unsafe('truncate mixed, author, book, review restart identity cascade')

describe.each(TEST_DRIVERS)('%s: load(query)', (driver) => {
  beforeAll(emptyTables)
  test('decodes every column as find() does, in any client time zone', async () => {
    const { client, query: sqlQuery } = db.client(driver, {
      max: 2,
      postgresJs: { connection: { TimeZone: 'Asia/Kolkata' } },
      pg: { options: '-c TimeZone=Asia/Kolkata' },
    })
    const factory = await createEntityManagerFactory<Mixed>({ client })
    // Written with SQL, so values pipeflush does not write (NaN, infinities) are read back too.
    await sqlQuery(`
      insert into mixed (i8, num, f4, f8, ok, ch, mood, day, ts, tstz, doc, bytes, ints, stamps, days, docs) values
      (-9223372036854775808, 12345678901234567890.0001, 1.5, -0.1, true, 'ab', 'it''s "ok"', '0044-03-15 BC',
       '2024-03-31 02:30:00.123456', '1969-12-31 23:59:59.9995+00', '{"a": [1, "x", null]}', '\\x0001feff',
       '{1,-2,3}', '{"1999-12-31 23:59:59.999",NULL}', '{2024-02-29,infinity}', array['[1, 2]', '{"b": "c"}', '"NULL"']::json[]),
      (null, 'NaN', 'NaN', 'Infinity', false, null, null, 'infinity', 'infinity', '-infinity', '"text"', '', '{}', '{}', null, '{}'),
      (null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null)
    `)
    const found = await factory.em().find('mixed')
    const loaded = await factory.em().load(factory.db.selectFrom('mixed').selectAll().orderBy('id'))
    expect(loaded).toHaveLength(3)
    expect(loaded.map((e) => ({ ...e }))).toEqual(found.map((e) => ({ ...e })))
    expect(loaded[0]).toMatchObject({
      ts: new Date('2024-03-31T02:30:00.123Z'),
      tstz: new Date(-1),
      stamps: [new Date('1999-12-31T23:59:59.999Z'), null],
      ch: 'ab',
      bytes: Buffer.from([0, 1, 254, 255]),
      docs: [[1, 2], { b: 'c' }, 'NULL'],
    })
    expect(loaded[1]).toMatchObject({
      num: 'NaN',
      f4: Number.NaN,
      ts: new Date(8.64e15),
      tstz: new Date(-8.64e15),
    })
  })
})

describe.each(TEST_DRIVERS)('%s: load(query) and the identity map', (driver) => {
  beforeAll(emptyTables)
  test('keeps where, order and limit; managed rows are the same objects; removed ones are left out', async () => {
    const { client, query: sqlQuery } = db.client(driver, { max: 2 })
    const factory = await createEntityManagerFactory<DB>({ client, versionColumn: 'version' })
    await factory.run((em) => {
      const ada = em.create('author', { name: 'Ada' })
      for (let i = 1; i <= 5; i++)
        em.create('book', { title: `Book ${i}`, author_id: ada, price: i * 10, tags: [`t${i}`] })
    })
    const em = factory.em()
    const first = await em.load('book', (await em.findOne('book', { title: 'Book 2' }))!.id)
    first.title = 'Changed, not flushed'
    const third = await em.findOne('book', { title: 'Book 3' })
    em.remove(third!)
    const loaded = await em.load(
      em.db.selectFrom('book').selectAll().where('price', '<=', '40').orderBy('price', 'desc').limit(3),
    )
    expect(loaded.map((b) => b.title)).toEqual(['Book 4', 'Changed, not flushed'])
    expect(loaded[1]).toBe(first)
    expect(em.stateOf(loaded[0])).toBe('managed')
    loaded[0]!.price = '44.00'
    const report = await em.flush()
    expect(report).toMatchObject({ updated: 2, deleted: 1 })
    const check = await sqlQuery('select title, price::text as price from book order by id')
    expect(check.map((r) => `${r['title']}=${r['price']}`)).toEqual([
      'Book 1=10.00',
      'Changed, not flushed=20.00',
      'Book 4=44.00',
      'Book 5=50.00',
    ])
  })

  // Its select list is every column as text, which holds none of the columns an ORDER BY names.
  test('a DISTINCT select ordered by its columns, and a DISTINCT ON', async () => {
    const { client } = db.client(driver, { max: 1 })
    const factory = await createEntityManagerFactory<DB>({ client })
    const names = ['Dora D', 'Dora D', 'Cleo D']
    await factory.run((em) => {
      for (const name of names) em.create('author', { name })
    })
    const em = factory.em()
    const distinct = await em.load(
      em.db
        .selectFrom('author')
        .selectAll()
        .distinct()
        .where('name', 'like', '% D')
        .orderBy('name')
        .orderBy('id', 'desc'),
    )
    const ids = distinct.map((a) => a.id)
    expect(distinct.map((a) => a.name)).toEqual(['Cleo D', 'Dora D', 'Dora D'])
    expect(ids[1]).toBeGreaterThan(ids[2]!)
    const first = await em.load(
      em.db
        .selectFrom('author')
        .selectAll()
        .distinctOn('name')
        .where('name', 'like', '% D')
        .orderBy('name')
        .orderBy('id'),
    )
    expect(first.map((a) => [a.name, a.id])).toEqual([
      ['Cleo D', ids[0]],
      ['Dora D', ids[2]],
    ])
    // The DISTINCT stays: a table inheriting from this one repeats a row of it.
    const guests = await createEntityManagerFactory<Guests>({ client })
    const g = guests.em()
    const read = await g.load(g.db.selectFrom('guest').selectAll().distinct().orderBy('name'))
    expect(read.map((x) => x.name)).toEqual(['Al', 'Bea'])
  })

  test('accepts an aliased or schema-qualified table and refuses joins', async () => {
    const { client } = db.client(driver, { max: 1 })
    const factory = await createEntityManagerFactory<DB>({ client })
    const em = factory.em()
    const aliased = await em.load(
      (em.db as unknown as typeof em.db)
        .selectFrom('author')
        .selectAll()
        .where('author.name', '=', 'Ada') as never,
    )
    expect(aliased).toHaveLength(1)
    const byAlias = await em.load(em.db.selectFrom('author as a').selectAll('a').where('a.name', '=', 'Ada'))
    expect(byAlias[0]).toBe(aliased[0])
    const qualified = await em.load(em.db.withSchema('public').selectFrom('author').selectAll() as never)
    expect(qualified[0]).toBe(aliased[0])
    const join = em.db.selectFrom('book').innerJoin('author', 'author.id', 'book.author_id').selectAll()
    await expect(em.load(join as never)).rejects.toSatisfy((e) => isPipeflushError(e, 'INVALID_STATE'))
  })

  test('a select from a leaf partition is UNKNOWN_TABLE naming its partitioned table, as find says', async () => {
    const table = `lq_part_${driver.replace(/\W/g, '_')}`
    await db.sql.unsafe(`
      create table ${table} (id int, at date, primary key (id, at)) partition by range (at);
      create table ${table}_2024 partition of ${table} for values from ('2024-01-01') to ('2025-01-01');
    `)
    const { client, counter } = db.client(driver, { max: 1 })
    const em = (await createEntityManagerFactory<DB>({ client })).em()
    counter.reset()
    const query = (em.db as unknown as { selectFrom(t: string): { selectAll(): unknown } })
      .selectFrom(`${table}_2024`)
      .selectAll()
    const error = await em.load(query as never).catch((e: unknown) => e)
    expect(isPipeflushError(error, 'UNKNOWN_TABLE'), String(error)).toBe(true)
    expect(String(error)).toContain(`it is a partition of "${table}"`)
    expect(counter.read().roundTrips).toBe(0)
  })

  // Found by an outside probe (a schema per tenant): the query named its table bare, so a pooled
  // connection whose search path a request switched read another schema's rows, tracked as this
  // table's entities, and a flush wrote their values into this table's rows of the same keys.
  test('reads the table the entity manager knows, whatever the search path of the connection', async () => {
    const s = `lq_sp_${driver.replace(/\W/g, '_')}`
    await db.sql.unsafe(`
      drop schema if exists ${s}_a cascade; drop schema if exists ${s}_b cascade;
      create schema ${s}_a; create schema ${s}_b;
      create table ${s}_a.acct (id int primary key, name text not null);
      create table ${s}_b.acct (id int primary key, name text not null);
      insert into ${s}_a.acct values (1, 'of a'); insert into ${s}_b.acct values (1, 'of b');
    `)
    interface Tenant {
      acct: { id: number; name: string }
    }
    const { client } = db.client(driver, { max: 1 })
    const run = (text: string) =>
      driver === 'pg'
        ? (client as { query(t: string): Promise<unknown> }).query(text)
        : (client as { unsafe(t: string): Promise<unknown> }).unsafe(text)
    await run(`set search_path = ${s}_a`)
    const factory = await createEntityManagerFactory<Tenant>({ client })
    await run(`set search_path = ${s}_b`)
    const em = factory.em()
    const direct = await em.load(em.db.selectFrom('acct').selectAll().where('id', '=', 1))
    const aliased = await factory
      .em()
      .load(em.db.selectFrom('acct as t').selectAll('t').where('t.id', '=', 1))
    expect([direct[0]?.name, aliased[0]?.name]).toEqual(['of a', 'of a'])
    direct[0]!.name = 'renamed'
    await em.flush()
    expect(
      await db.sql.unsafe(`select name from ${s}_a.acct union all select name from ${s}_b.acct`),
    ).toEqual([{ name: 'renamed' }, { name: 'of b' }])
  })

  test('a with query named as the table is what the bare name reads: not qualified', async () => {
    const { client } = db.client(driver, { max: 1 })
    const em = (await createEntityManagerFactory<DB>({ client })).em()
    const all = await em.load(em.db.selectFrom('author').selectAll())
    const query = em.db
      .with('author', (q) => q.selectFrom('author').selectAll().where('name', '=', 'Ada'))
      .selectFrom('author')
      .selectAll()
    const shadowed = await em.load(query as never)
    expect(all.length).toBeGreaterThan(1)
    expect(shadowed.map((a) => (a as Record<string, unknown>)['name'])).toEqual(['Ada'])
  })

  test('runs on the same pool, one round trip once warm, with the other reads of its tick', async () => {
    const { client, counter } = db.client(driver, { max: 1 })
    const factory = await createEntityManagerFactory<DB>({ client })
    const query = (title: string) => factory.db.selectFrom('book').selectAll().where('title', '=', title)
    await factory.em().load(query('Book 1'))
    counter.reset()
    const em = factory.em()
    await em.load(query('Book 4'))
    expect(counter.read().roundTrips).toBe(1)
    counter.reset()
    const [one, two, author, cheap] = await Promise.all([
      em.load(query('Book 1')),
      em.load(query('Book 4')),
      em.load('author', 1),
      em.load(factory.db.selectFrom('book').selectAll().where('price', '<', '20').orderBy('id').limit(2)),
    ])
    expect(counter.read().roundTrips).toBe(1)
    expect([one?.[0]?.title, two?.[0]?.title, author.name]).toEqual(['Book 1', 'Book 4', 'Ada'])
    expect(cheap.length).toBeGreaterThan(0)
  })

  test('a page chosen by the query (order, limit, offset, a subquery), its graph and counts per row, and a total from select(): one round trip', async () => {
    const { client, counter, query: sqlQuery } = db.client(driver, { max: 1 })
    const factory = await createEntityManagerFactory<DB, Relations>({ client })
    const em = factory.em()
    const ids = (await sqlQuery('select id::int as id from book order by id')).map((r) => Number(r['id']))
    await sqlQuery(
      `insert into review (book_id, stars) values (${ids[0]}, 5), (${ids[0]}, 3), (${ids[2]}, 4)`,
    )
    await em.load('author', 1) // a warm connection
    counter.reset()
    const page = em.db
      .selectFrom('book')
      .selectAll()
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('author')
            .select('author.id')
            .whereRef('author.id', '=', 'book.author_id')
            .where('author.name', '=', 'Ada'),
        ),
      )
      .orderBy('price', 'desc')
      .limit(2)
      .offset(1)
    const [books, [total]] = await Promise.all([
      em.load(page, {
        with: { author: true, reviews: { $orderBy: { stars: 'desc' } }, $count: ['reviews'] },
      }),
      em.select(em.db.selectFrom('book').select(sql<number>`count(*)::int`.as('n'))),
    ])
    expect(counter.read().roundTrips).toBe(1)
    expect(books.map((b) => b.title)).toEqual(['Book 4', 'Changed, not flushed'])
    expect(total).toEqual({ n: 4 })
    const [b4, b2] = books as [(typeof books)[0], (typeof books)[0]]
    expect(em.related(b4, 'author')?.name).toBe('Ada')
    expect([em.countOf(b4, 'reviews'), em.countOf(b2, 'reviews')]).toEqual([1, 0])
    expect(em.related(b4, 'reviews').map((r) => r.stars)).toEqual([4])
    const [first] = await em.load(em.db.selectFrom('book').selectAll().where('id', '=', String(ids[0])), {
      with: { reviews: { $orderBy: { stars: 'desc' } }, $count: ['reviews'] },
    })
    expect(em.related(first!, 'reviews').map((r) => r.stars)).toEqual([5, 3])
    expect(em.countOf(first!, 'reviews')).toBe(2)
  })

  test('reads a view: its rows are read-only entities (an assignment is UNSUPPORTED_TABLE at once)', async () => {
    const { client } = db.client(driver, { max: 1 })
    const factory = await createEntityManagerFactory<WithView>({ client })
    const em = factory.em()
    const cheap = await em.load(
      em.db.selectFrom('cheap_book').selectAll().where('price', '<', '15').orderBy('id'),
    )
    expect(cheap.map((b) => ({ ...b }))).toEqual([{ id: '1', title: 'Book 1', price: '10.00' }])
    expect(em.stateOf(cheap[0])).toBe('managed')
    expect(() => {
      cheap[0]!.title = 'x'
    }).toThrowError(expect.objectContaining({ code: 'UNSUPPORTED_TABLE', table: 'cheap_book' }))
    expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
  })
})

describe.each(TEST_DRIVERS)('%s: load(query) with Date parameters', (driver) => {
  test('a Date outside years 1 to 9999, infinity and BC included, is sent as the server reads it', async () => {
    const { client } = db.client(driver, { max: 1 })
    const factory = await createEntityManagerFactory<Events>({ client })
    const em = factory.em()
    const utc = (year: number, month = 0, day = 1, ...time: number[]) => {
      const d = new Date(Date.UTC(2000, month, day, ...time))
      d.setUTCFullYear(year)
      return d
    }
    const ids = async (where: (q: ReturnType<typeof select>) => ReturnType<typeof select>) =>
      (await em.load(where(select()).orderBy('id'))).map((e) => e.id)
    const select = () => factory.db.selectFrom('ev').selectAll()
    const infinity = new Date(8.64e15)
    const bc44 = utc(-43, 2, 15)
    const y10000 = utc(10000, 0, 1, 12, 30, 5, 7)
    const bc1 = utc(0, 5, 1)
    expect(await ids((q) => q.where('at', '=', infinity))).toEqual([2])
    expect(await ids((q) => q.where('at', '<', utc(-9)))).toEqual([3])
    expect(await ids((q) => q.where('at', '>', utc(-99)))).toEqual([1, 2, 3, 4, 5])
    expect(await ids((q) => q.where('at', '=', bc44))).toEqual([3])
    expect(await ids((q) => q.where('at', '=', y10000))).toEqual([4])
    expect(await ids((q) => q.where('at', '=', bc1))).toEqual([5])
    expect(await ids((q) => q.where('at', '>=', utc(1000)))).toEqual([2, 4])
    expect(await ids((q) => q.where('at', '<', new Date(-8.64e15)))).toEqual([])
    expect(await ids((q) => q.where('ts', '=', y10000))).toEqual([4])
    expect(await ids((q) => q.where('ts', '=', bc44))).toEqual([3])
    expect(await ids((q) => q.where('ts', '=', infinity))).toEqual([2])
    expect(await ids((q) => q.where('day', '=', bc44 as never))).toEqual([3])
    expect(await ids((q) => q.where('day', '>=', y10000 as never))).toEqual([2, 4])
    // A list of Dates (an array parameter) too.
    expect(
      await ids((q) => q.where(sql<boolean>`at = any(${[bc44, y10000, infinity]}::timestamptz[])`)),
    ).toEqual([2, 3, 4])
    // As core's find reads the same Dates.
    for (const [at, expected] of [
      [infinity, [2]],
      [bc44, [3]],
      [y10000, [4]],
      [bc1, [5]],
    ] as const) {
      expect((await em.find('ev', { at })).map((e) => e.id).sort()).toEqual(expected)
    }
  })
})
