import { defineSchema, isPipeflushError } from '@pipeflush/core'
import { describe, expect, test } from 'vitest'
import { graphLevels } from '../../../src/read/graph.ts'

const schema = defineSchema({
  author: { columns: { id: 'int4', name: 'text' }, primaryKey: ['id'] },
  book: {
    columns: { id: 'int8', author_id: 'int4', title: 'text' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['author_id'], references: 'author' }],
  },
  review: {
    columns: { id: 'int8', book_id: 'int8', stars: 'int4' },
    primaryKey: ['id'],
    foreignKeys: [{ columns: ['book_id'], references: 'book' }],
  },
})
const author = schema.tables.get('author')!
const where = 't0."id" = $1::text::int4'

describe('graphLevels', () => {
  test('a shape met again reuses its texts (the same string objects) with the new parameters', () => {
    const first = graphLevels(schema, author, where, ['1'], { books: { reviews: true } })
    const again = graphLevels(schema, author, where, ['2'], { books: { reviews: true } })
    expect(again.map((l) => l.table.key)).toEqual(['author', 'book', 'review'])
    expect(again.map((l) => l.statement.params)).toEqual([['2'], ['2'], ['2']])
    expect(first.map((l) => l.statement.params)).toEqual([['1'], ['1'], ['1']])
    for (let i = 0; i < first.length; i++)
      expect(Object.is(again[i]!.statement.text, first[i]!.statement.text)).toBe(true)
    expect(again[2]!.statement.text).toContain(
      'where (t2."book_id") in (select t1."id" from "public"."book" as t1',
    )
  })

  test('another tree, condition or root is another shape', () => {
    const books = graphLevels(schema, author, where, ['1'], { books: true })
    expect(books.map((l) => l.table.key)).toEqual(['author', 'book'])
    const byName = graphLevels(schema, author, 't0."name" = $1::text', ['Ada'], { books: true })
    expect(byName[0]!.statement.text).toContain('t0."name" = $1::text')
    expect(byName[1]!.statement.text).not.toBe(books[1]!.statement.text)
  })

  test('a tree with a bad value is rejected every time, however close to a shape met before', () => {
    graphLevels(schema, author, where, ['1'], { books: true })
    for (const tree of [{ books: 5 }, { books: undefined }, { books: { reviews: 'yes' } }, { nope: true }]) {
      let error: unknown
      try {
        graphLevels(schema, author, where, ['1'], tree as never)
      } catch (e) {
        error = e
      }
      expect(
        isPipeflushError(error, 'INVALID_VALUE') || isPipeflushError(error, 'UNKNOWN_RELATION'),
        JSON.stringify(tree),
      ).toBe(true)
    }
  })
})
