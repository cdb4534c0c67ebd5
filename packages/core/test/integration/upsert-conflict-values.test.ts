import { EntityManager } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// Conflict values as the server compares them (found by an outside probe):
// - two upserts of one key given in two forms the server holds equal (a citext's cases, a numeric's
//   scale, a char(n)'s trailing spaces) are one row, the last wins; they were two rows of one
//   statement, which the server refused (21000, "cannot affect row a second time");
// - an upsert whose conflict value is NULL: committed, but its entity was left detached without its
//   id (its returned row was not matched to it), so the application could not reach the row.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create extension if not exists citext;
    create table ucv_forms (id serial primary key, ci citext unique, nu numeric unique, ch char(4) unique, note text);
    create table ucv_distinct (id serial primary key, k text unique, v text);
    create table ucv_not_distinct (id serial primary key, k text, v text, unique nulls not distinct (k));
    create table ucv_cu (id serial primary key, u text unique, v text, w text);
  `)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each([
    ['ci', 'twice', 'TWICE'],
    ['nu', '1.50', '1.5'],
    ['ch', 'ab', 'ab  '],
  ])(
    'two upserts of %s in two forms the server holds equal: one row, the last wins',
    async (column, first, last) => {
      const { client } = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(client)
      await db.sql.unsafe('delete from ucv_forms')
      const em = root.fork()
      em.upsert('ucv_forms', { [column]: first, note: 'first' }, { conflict: [column] })
      const b = em.upsert('ucv_forms', { [column]: last, note: 'last' }, { conflict: [column] })
      const report = await em.flush()
      expect(report.upserted).toBe(1)
      const rows = await db.sql.unsafe<{ id: number; note: string }[]>('select id, note from ucv_forms')
      expect(rows.map((r) => r.note)).toEqual(['last'])
      expect(b['id']).toBe(rows[0]!.id)
    },
  )

  test.each(['ucv_distinct', 'ucv_not_distinct'])(
    '%s: an upsert whose conflict value is NULL: its entity is managed and holds its row',
    async (table) => {
      const { client } = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(client)
      await db.sql.unsafe(`delete from ${table}`)
      for (const round of [1, 2]) {
        const em = root.fork()
        const e = em.upsert(table, { k: null, v: `v${round}` }, { conflict: ['k'] })
        const report = await em.flush()
        expect(report.upserted).toBe(1)
        const rows = await db.sql.unsafe<{ id: number; v: string }[]>(
          `select id, v from ${table} order by id`,
        )
        // NULLS NOT DISTINCT: the second updates the row; else each is a row of its own.
        expect(rows.map((r) => r.v)).toEqual(
          table === 'ucv_not_distinct' ? [`v${round}`] : round === 1 ? ['v1'] : ['v1', 'v2'],
        )
        expect(e['id']).toBe(rows[rows.length - 1]!.id)
        e['v'] = 'changed' // managed: a later change is written
        expect((await em.flush()).updated).toBe(1)
        await db.sql.unsafe(`update ${table} set v = 'v${round}' where id = ${Number(e['id'])}`)
      }
    },
  )

  test('two upserts of a NULL conflict value in one flush (NULLS DISTINCT): two rows, neither entity holds the other', async () => {
    const { client } = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(client)
    await db.sql.unsafe('delete from ucv_distinct')
    const em = root.fork()
    const a = em.upsert('ucv_distinct', { k: null, v: 'a' }, { conflict: ['k'] })
    const b = em.upsert('ucv_distinct', { k: null, v: 'b' }, { conflict: ['k'] })
    const report = await em.flush()
    expect(report.upserted).toBe(2)
    const rows = await db.sql.unsafe<{ id: number; v: string }[]>('select id, v from ucv_distinct order by v')
    expect(rows.map((r) => r.v)).toEqual(['a', 'b'])
    // Their rows cannot be told apart by conflict values: each entity holds its own row or none.
    for (const [e, v] of [
      [a, 'a'],
      [b, 'b'],
    ] as const)
      if (e['id'] !== undefined) expect(rows.find((r) => r.id === e['id'])?.v).toBe(v)
    expect(a['v']).toBe('a')
    expect(b['v']).toBe('b')
  })
})

// A create and an upsert of one unique value in one flush: the create's insert goes first, the upsert
// updates its row, whatever columns each was given. The order followed the column sets, so the flush
// committed or failed on the unique value by the columns the create was given (an outside probe).
describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each([
    ['{ u }', (u: string) => ({ u })],
    ['{ u, v }', (u: string) => ({ u, v: 'created' })],
    ['{ u, v, w }', (u: string) => ({ u, v: 'created', w: 'w' })],
    ['{ u, w }', (u: string) => ({ u, w: 'w' })],
  ])(
    'a create of %s and an upsert of its unique value: committed, the upsert updates the row',
    async (_, values) => {
      const { client } = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(client)
      await db.sql.unsafe(
        'create table if not exists ucv_cu (id serial primary key, u text unique, v text, w text); delete from ucv_cu',
      )
      const em = root.fork()
      const made = em.create('ucv_cu', values('x'))
      const up = em.upsert('ucv_cu', { u: 'x', v: 'upserted' }, { conflict: ['u'] })
      const report = await em.flush()
      expect({ inserted: report.inserted, upserted: report.upserted }).toEqual({ inserted: 1, upserted: 1 })
      const rows = await db.sql.unsafe<{ id: number; v: string }[]>('select id, v from ucv_cu')
      expect(rows.map((r) => r.v)).toEqual(['upserted'])
      expect(made['id']).toBe(rows[0]!.id)
      expect(up['v']).toBe('upserted')
    },
  )
})
