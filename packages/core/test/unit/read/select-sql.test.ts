import { defineSchema, isPipeflushError } from '@pipeflush/core'
import { describe, expect, test } from 'vitest'
import { keyWhereT0, whereSql } from '../../../src/read/select-sql.ts'

const schema = defineSchema({
  author: { columns: { id: 'int4', name: 'text' }, primaryKey: ['id'] },
  book: { columns: { id: 'int8', title: 'text' }, primaryKey: ['id'] },
  tag: { columns: { id: 'uuid', name: 'text' }, primaryKey: ['id'] },
  city: { columns: { name: 'text', country: 'text' }, primaryKey: ['name'] },
  slot: { columns: { at: 'timestamptz', room: 'int4' }, primaryKey: ['at'] },
  book_tag: { columns: { book_id: 'int8', tag_id: 'uuid' }, primaryKey: ['book_id', 'tag_id'] },
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
