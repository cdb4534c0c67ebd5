import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// PostgreSQL lets a foreign key of one integer type reference a key of another: an `int` column
// referencing a `bigserial` key is common in older schemas. An entity given as such a column's value
// is written as the column holds it (a number), whether its id is known or drawn by the flush.

const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table big_parent (id bigserial primary key, name text not null);
    create table small_child (id serial primary key, parent_id int references big_parent, label text not null);
    create table tiny_child (id bigserial primary key, parent_id smallint references big_parent);
    create table pair_child (parent_id int not null references big_parent, n smallint not null, primary key (parent_id, n));
    create table wide_child (id bigserial primary key, owner_id bigint references small_child);
    create table wide_tag (id serial primary key, name text not null);
    create table wide_child_tag (child_id bigint references wide_child, tag_id bigint references wide_tag, primary key (child_id, tag_id));
    create table cycle_a (id serial primary key, b_id bigint);
    create table cycle_b (id serial primary key, a_id bigint references cycle_a);
    alter table cycle_a add foreign key (b_id) references cycle_b;
  `)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  async function connect(options: { copyRows?: number } = {}) {
    const { client, counter } = db.client(driver, { max: 2 })
    return { root: await EntityManager.connect(client, options), counter }
  }

  test('new rows referencing a new bigserial row through int, smallint and a composite key: one flush, the ids as numbers, nothing left to write', async () => {
    const { root } = await connect()
    const em = root.fork()
    const parent = em.create('big_parent', { name: `parent-${driver}` })
    const child = em.create('small_child', { parent_id: parent, label: 'a' })
    const tiny = em.create('tiny_child', { parent_id: parent })
    const pair = em.create('pair_child', { parent_id: parent, n: 1 })
    const wide = em.create('wide_child', { owner_id: child })
    const report = await em.flush()
    expect([report.inserted, report.roundTrips]).toEqual([5, report.idFetch ? 2 : 1])
    const id = Number(parent['id'])
    expect([child['parent_id'], tiny['parent_id'], pair['parent_id']]).toEqual([id, id, id])
    expect(wide['owner_id']).toBe(child['id'])
    expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
    expect((await em.flush()).statements).toBe(0)
    const rows = await db.sql<{ c: number; t: number; p: number }[]>`
      select (select parent_id from small_child where id = ${child['id'] as number}) as c,
             (select parent_id from tiny_child where id = ${tiny['id'] as string}::int8) as t,
             (select parent_id from pair_child where parent_id = ${id} and n = 1) as p`
    expect(rows[0]).toEqual({ c: id, t: id, p: id })
    // Found again by the entity, and navigated both ways.
    const other = root.fork()
    const [p] = await other.find('big_parent', { id: String(id) })
    const found = await other.find('small_child', { parent_id: p })
    expect(found.map((c) => c['label'])).toEqual(['a'])
  })

  test('a stored bigserial row given to int columns: an insert, an update reassigning it, a find by it', async () => {
    const { root } = await connect()
    const seed = root.fork()
    const first = seed.create('big_parent', { name: 'first' })
    const second = seed.create('big_parent', { name: 'second' })
    const moved = seed.create('small_child', { parent_id: first, label: `moved-${driver}` })
    await seed.flush()
    const em = root.fork()
    const [a, b] = await em.find(
      'big_parent',
      { id: [first['id'], second['id']] },
      { orderBy: { id: 'asc' } },
    )
    const [m] = await em.find('small_child', { id: moved['id'] })
    m!['parent_id'] = b
    const made = em.create('small_child', { parent_id: a, label: `made-${driver}` })
    expect(em.pending).toEqual({ inserts: 1, updates: 1, deletes: 0, upserts: 0 })
    const report = await em.flush()
    expect([report.inserted, report.updated]).toEqual([1, 1])
    expect([m!['parent_id'], made['parent_id']]).toEqual([Number(b!['id']), Number(a!['id'])])
    expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
    const byParent = await em.find('small_child', { parent_id: [a, b] }, { orderBy: { id: 'asc' } })
    expect(byParent.map((c) => [c['label'], c['parent_id']])).toEqual([
      [`moved-${driver}`, Number(b!['id'])],
      [`made-${driver}`, Number(a!['id'])],
    ])
  })

  test('sent as COPY: the rows referencing a new bigserial row through an int column take its id', async () => {
    const { root } = await connect({ copyRows: 10 })
    const em = root.fork()
    const parent = em.create('big_parent', { name: `copied-${driver}` })
    for (let i = 0; i < 25; i++) em.create('small_child', { parent_id: parent, label: `copy-${driver}-${i}` })
    const report = await em.flush()
    expect(report.summary).toMatch(/COPY small_child/)
    const [row] = await db.sql<{ n: number; parents: number[] }[]>`
      select count(*)::int as n, array_agg(distinct parent_id) as parents from small_child where label like ${`copy-${driver}-%`}`
    expect(row).toEqual({ n: 25, parents: [Number(parent['id'])] })
    expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
  })

  test('a bigserial id beyond int4 given to an int column: INVALID_VALUE naming the column, nothing sent', async () => {
    const { root, counter } = await connect()
    const [far] = await db.sql<
      { id: string }[]
    >`insert into big_parent (id, name) values (${driver === 'pg' ? 3_000_000_000 : 3_000_000_001}, 'far') returning id::text`
    const em = root.fork()
    const [p] = await em.find('big_parent', { id: far!.id })
    em.create('small_child', { parent_id: p, label: 'too far' })
    const before = counter.read().bytesOut
    const error = await em.flush().catch((e: unknown) => e)
    expect(isPipeflushError(error, 'INVALID_VALUE')).toBe(true)
    expect(String((error as Error).message)).toMatch(/small_child\.parent_id.*out of range for int4/)
    expect(counter.read().bytesOut).toBe(before)
    expect(em.pending).toEqual({ inserts: 1, updates: 0, deletes: 0, upserts: 0 })
  })
  // A \`bigint\` column referencing an \`int\` key (a migration tool's foreign keys beside an older
  // \`serial\` key): its values are texts, the key's numbers; they are matched as the integers they are.
  test('bigint columns referencing int keys: a many-to-one and a many-to-many read, a flush mixing given and drawn ids, a delete cycle', async () => {
    const { root, counter } = await connect()
    const seed = root.fork()
    const owner = seed.create('small_child', { parent_id: null, label: `owner-${driver}` })
    const wide = seed.create('wide_child', { owner_id: owner })
    const tag = seed.create('wide_tag', { name: `tag-${driver}` })
    seed.create('wide_child_tag', { child_id: wide, tag_id: tag })
    await seed.flush()
    const ownerId = owner['id'] as number
    const em = root.fork()
    const [read] = await em.find('wide_child', { id: wide['id'] }, { with: { owner: true, wide_tags: true } })
    expect(read!['owner_id']).toBe(String(ownerId))
    expect((read!['owner'] as Record<string, unknown>)['label']).toBe(`owner-${driver}`)
    expect((read!['wide_tags'] as Record<string, unknown>[]).map((t) => t['name'])).toEqual([`tag-${driver}`])
    // A new int row (its id drawn by the flush) beside a new bigint row given a stored key as text.
    const drawn = em.create('small_child', { parent_id: null, label: `drawn-${driver}` })
    const given = em.create('wide_child', { owner_id: String(ownerId) })
    const after = em.create('wide_child', { owner_id: drawn })
    const report = await em.flush()
    expect([report.inserted, report.roundTrips]).toEqual([3, report.idFetch ? 2 : 1])
    expect(given['owner']).toBe(read!['owner'])
    expect(after['owner_id']).toBe(drawn['id'])
    // Two loaded rows referencing each other through bigint columns, deleted in one flush: the cycle
    // is broken by setting one reference to NULL first.
    const a = em.create('cycle_a', { b_id: null })
    await em.flush()
    const b = em.create('cycle_b', { a_id: a })
    await em.flush()
    a['b_id'] = b
    await em.flush()
    // Read again: the bigint columns hold texts now.
    const cycle = root.fork()
    const [a2] = await cycle.find('cycle_a', { id: a['id'] })
    const [b2] = await cycle.find('cycle_b', { id: b['id'] })
    expect([a2!['b_id'], b2!['a_id']]).toEqual([String(b['id']), String(a['id'])])
    cycle.remove(a2!)
    cycle.remove(b2!)
    const before = counter.read().writes
    const removed = await cycle.flush()
    expect(removed.deleted).toBe(2)
    expect(counter.read().writes - before).toBe(removed.roundTrips)
    const left =
      await db.sql`select id from cycle_a where id = ${a['id'] as number} union all select id from cycle_b where id = ${b['id'] as number}`
    expect(left).toEqual([])
  })
})
