import { defineSchema, EntityManager, formatPlan } from '@pipeflush/core'
import postgres from 'postgres'
import { describe, expect, test } from 'vitest'

// postgres.js connects lazily: nothing here opens a connection (the port is closed anyway).
const sql = postgres('postgres://nobody@127.0.0.1:1/none', { max: 1 })

const schema = defineSchema({
  author: { columns: { id: 'uuid', name: 'text' }, primaryKey: ['id'] },
  book: {
    columns: { id: 'uuid', author_id: 'uuid', title: 'text' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['author_id'], references: 'author' }],
  },
})

describe('an entity manager on a schema declared in code', () => {
  test('plans a flush as plain data, without a database', async () => {
    const em = await EntityManager.connect(sql, { schema })
    const ada = em.create('author', { name: 'Ada' })
    em.create('book', { title: 'Notes', author_id: ada })
    em.create('book', { title: 'Sketches', author_id: ada })
    expect(String(ada['id'])).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/) // uuid v7, assigned at create
    const plan = em.plan()
    expect(plan.waves.map((w) => w.map((s) => `${s.kind} ${s.table} x${s.rowCount}`))).toEqual([
      ['insert author x1'],
      ['insert book x2'],
    ])
    const [bookInsert] = plan.waves[1]!
    expect(bookInsert!.params[1]).toEqual([ada['id'], ada['id']]) // the entity stands for its id
    expect(bookInsert!.sql).toBe(
      'insert into "public"."book" ("id", "author_id", "title") select d."id"::uuid, d."author_id"::uuid, d."title"::text from unnest($1::text[], $2::text[], $3::text[]) as d("id", "author_id", "title")',
    )
    const text = formatPlan(plan)
    expect(text).toContain('insert')
    expect(text).toContain('"public"."book"')
    // Planning sent nothing and changed nothing.
    expect(em.pending).toEqual({ inserts: 3, updates: 0, deletes: 0, upserts: 0 })
    expect(em.stateOf(ada)).toBe('new')
  })

  test('rows whose ids come from a sequence are planned with placeholders, and the rows are left untouched', async () => {
    const numbered = defineSchema({
      author: { columns: { id: { type: 'int8', identity: 'by default' }, name: 'text' }, primaryKey: ['id'] },
      book: {
        columns: { id: { type: 'int4', identity: 'by default' }, author_id: 'int8', title: 'text' },
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['author_id'], references: 'author' }],
      },
    })
    const em = await EntityManager.connect(sql, { schema: numbered })
    const ada = em.create('author', { name: 'Ada' })
    const bo = em.create('author', { id: null, name: 'Bo' })
    em.create('book', { title: 'Notes', author_id: bo })
    em.create('book', { title: 'Sketches', author_id: ada })
    const plan = em.plan()
    const [authors] = plan.waves[0]!
    const [books] = plan.waves[1]!
    expect(authors!.params).toEqual([
      ['-2', '-1'],
      ['Bo', 'Ada'],
    ]) // sorted by key: the placeholders are ids like any other
    expect(books!.params).toEqual([
      ['-4', '-3'],
      ['-1', '-2'],
      ['Sketches', 'Notes'],
    ]) // each book points at its author's placeholder
    expect(Object.keys(ada)).toEqual(['name'])
    expect(ada['id']).toBeUndefined()
    expect(Object.keys(bo)).toEqual(['id', 'name'])
    expect(bo['id']).toBeNull()
    expect(em.plan()).toEqual(plan)
  })

  test('a NOT NULL cycle among new rows is a clear error when planning, before anything is sent', async () => {
    const cyclic = defineSchema({
      a: {
        columns: { id: 'uuid', b_id: 'uuid' },
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['b_id'], references: 'b' }],
      },
      b: {
        columns: { id: 'uuid', a_id: 'uuid' },
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['a_id'], references: 'a' }],
      },
    })
    const em = await EntityManager.connect(sql, { schema: cyclic })
    const a = em.create('a', {})
    const b = em.create('b', { a_id: a })
    a['b_id'] = b
    expect(() => em.plan()).toThrowError(/cycle/)
    await expect(em.flush()).rejects.toMatchObject({ code: 'UNRESOLVABLE_CYCLE' })
  })

  test('pipeline must be off, waves or burst', async () => {
    await expect(EntityManager.connect(sql, { schema, pipeline: 'fast' as never })).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
    })
  })
})
