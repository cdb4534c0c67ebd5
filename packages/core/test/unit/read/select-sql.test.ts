import { defineSchema, isPipeflushError } from '@pipeflush/core'
import { describe, expect, test } from 'vitest'
import { keySetSql, keyWhereT0, whereSql } from '../../../src/read/select-sql.ts'

const schema = defineSchema({
  author: { columns: { id: 'int4', name: 'text' }, primaryKey: ['id'] },
  book: { columns: { id: 'int8', title: 'text' }, primaryKey: ['id'] },
  tag: { columns: { id: 'uuid', name: 'text' }, primaryKey: ['id'] },
  city: { columns: { name: 'text', country: 'text' }, primaryKey: ['name'] },
  slot: { columns: { at: 'timestamptz', room: 'int4' }, primaryKey: ['at'] },
  book_tag: { columns: { book_id: 'int8', tag_id: 'uuid' }, primaryKey: ['book_id', 'tag_id'] },
  arr: { columns: { id: 'int4[]', v: 'text' }, primaryKey: ['id'] },
  tagged: { columns: { tenant: 'int4', tags: 'text[]' }, primaryKey: ['tenant', 'tags'] },
})
const table = (key: string) => schema.tables.get(key)!

describe('keyWhereT0', () => {
  test.each([
    ['author', { id: 7 }],
    ['book', { id: 1234567890123456789n }],
    ['tag', { id: '0E984725-C51C-4BF4-9960-E1C80E27ABA0' }],
    ['city', { name: "L'Aquila" }],
    ['slot', { at: new Date('2026-11-29T03:00:00.000Z') }],
    ['book_tag', { book_id: 1, tag_id: '0e984725-c51c-4bf4-9960-e1c80e27aba0' }],
    ['arr', { id: [1, 2] }],
    ['tagged', { tenant: 1, tags: ['a,b', 'c"d'] }],
  ])('writes what whereSql writes for a key of %s', (key, where) => {
    expect(keyWhereT0(table(key), where)).toEqual(whereSql(table(key), where, 't0'))
  })

  test('the text of a one-column key is made once per table, its parameter each time', () => {
    const first = keyWhereT0(table('author'), { id: 1 })
    const second = keyWhereT0(table('author'), { id: 2 })
    expect(second.sql).toBe(first.sql)
    expect([first.params, second.params]).toEqual([['1'], ['2']])
  })

  test('a key value its column cannot hold is INVALID_VALUE naming the table and column', () => {
    let caught: unknown
    try {
      keyWhereT0(table('author'), { id: 1.5 })
    } catch (e) {
      caught = e
    }
    expect(isPipeflushError(caught, 'INVALID_VALUE')).toBe(true)
    expect((caught as Error).message).toContain('author.id')
  })
})

describe('keySetSql', () => {
  test('a one-column key: its column = any of one text[] of the keys', () => {
    expect(keySetSql(table('author'), [{ id: 1 }, { id: 2 }], 't', 1)).toEqual({
      sql: 't."id" = any($1::text[]::int4[])',
      params: [['1', '2']],
    })
  })

  test('an array key is one value: each key an array literal, read as the column type, never = any of its elements', () => {
    const one = keySetSql(table('arr'), [{ id: [1, 2] }, { id: [] }, { id: [4, null] }], 't', 1)
    expect(one).toEqual({
      sql: '(t."id") in (select pf_k0::int4[] from unnest($1::text[]) as pf_keys(pf_k0))',
      params: [['{"1","2"}', '{}', '{"4",NULL}']],
    })
    expect(one.sql).not.toContain('any(')
    expect(keySetSql(table('tagged'), [{ tenant: 1, tags: ['a,b', 'c"d'] }], 't0', 3)).toEqual({
      sql: '(t0."tenant", t0."tags") in (select pf_k0::int4, pf_k1::text[] from unnest($3::text[], $4::text[]) as pf_keys(pf_k0, pf_k1))',
      params: [['1'], ['{"a,b","c\\"d"}']],
    })
  })
})
