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
  tag: { columns: { id: 'int4', name: 'text' }, primaryKey: ['id'] },
  book_tag: {
    columns: { book_id: 'int8', tag_id: 'int4' },
    primaryKey: ['book_id', 'tag_id'],
    foreignKeys: [
      { columns: ['book_id'], references: 'book' },
      { columns: ['tag_id'], references: 'tag' },
    ],
  },
})
const author = schema.tables.get('author')!
const where = 't0."id" = $1::text::int4'

describe('graphLevels', () => {
  test('a shape met again reuses its texts (the same string objects) with the new parameters', () => {
    const first = graphLevels(schema, author, { where: where, params: ['1'] }, { books: { reviews: true } })
    const again = graphLevels(schema, author, { where: where, params: ['2'] }, { books: { reviews: true } })
    expect(again.map((l) => l.table.key)).toEqual(['author', 'book', 'review'])
    expect(again.map((l) => l.statement.params)).toEqual([['2'], ['2'], ['2']])
    expect(first.map((l) => l.statement.params)).toEqual([['1'], ['1'], ['1']])
    for (let i = 0; i < first.length; i++)
      expect(Object.is(again[i]!.statement.text, first[i]!.statement.text)).toBe(true)
    expect(again[2]!.statement.text).toContain(
      'where (t2."book_id") in (select t1."id" from "public"."book" as t1',
    )
  })

  test("pages of one size share their texts: the offset is the roots' last parameter, in every level", () => {
    const tree = { books: { $where: { title: 'Dune' } } }
    const page = (offset: number) =>
      graphLevels(schema, author, { where, params: ['1'], orderBy: 't0."name"', limit: 10, offset }, tree)
    const [second, third] = [page(10), page(20)]
    expect(second.map((l) => l.statement.params)).toEqual([
      ['1', '10'],
      ['1', '10', 'Dune'],
    ])
    expect(third.map((l) => l.statement.params)).toEqual([
      ['1', '20'],
      ['1', '20', 'Dune'],
    ])
    for (let i = 0; i < second.length; i++)
      expect(Object.is(third[i]!.statement.text, second[i]!.statement.text)).toBe(true)
    expect(second[0]!.statement.text).toMatch(/ order by t0\."name" limit 10 offset \$2::int8$/)
    expect(second[1]!.statement.text).toContain('limit 10 offset $2::int8)')
    expect(second[1]!.statement.text).toContain('$3::text')
    // Without an offset, another shape: no parameter added.
    const first = graphLevels(schema, author, { where, params: ['1'], orderBy: 't0."name"', limit: 10 }, tree)
    expect(first.map((l) => l.statement.params)).toEqual([['1'], ['1', 'Dune']])
    expect(first[0]!.statement.text).toMatch(/ limit 10$/)
  })

  test('another tree, condition or root is another shape', () => {
    const books = graphLevels(schema, author, { where: where, params: ['1'] }, { books: true })
    expect(books.map((l) => l.table.key)).toEqual(['author', 'book'])
    const byName = graphLevels(
      schema,
      author,
      { where: 't0."name" = $1::text', params: ['Ada'] },
      { books: true },
    )
    expect(byName[0]!.statement.text).toContain('t0."name" = $1::text')
    expect(byName[1]!.statement.text).not.toBe(books[1]!.statement.text)
  })

  test('a tree with a bad value is rejected every time, however close to a shape met before', () => {
    graphLevels(schema, author, { where: where, params: ['1'] }, { books: true })
    for (const tree of [{ books: 5 }, { books: undefined }, { books: { reviews: 'yes' } }, { nope: true }]) {
      let error: unknown
      try {
        graphLevels(schema, author, { where: where, params: ['1'] }, tree as never)
      } catch (e) {
        error = e
      }
      expect(
        isPipeflushError(error, 'INVALID_VALUE') || isPipeflushError(error, 'UNKNOWN_RELATION'),
        JSON.stringify(tree),
      ).toBe(true)
    }
  })

  test("rows selected twice are selected once: a link table's one-to-many beside the many-to-many through it", () => {
    for (const tree of [
      { books: { book_tags: true, tags: true } },
      { books: { tags: true, book_tags: true } },
    ] as const) {
      const levels = graphLevels(schema, author, { where: where, params: ['1'] }, tree)
      const shown = levels.map(
        (l) => `${l.table.key}:${l.role}${l.rowsOf === undefined ? '' : `=${l.rowsOf}`}`,
      )
      expect(shown).toEqual(
        'book_tags' in tree.books && Object.keys(tree.books)[0] === 'book_tags'
          ? ['author:roots', 'book:related', 'book_tag:related', 'book_tag:links=2', 'tag:related']
          : ['author:roots', 'book:related', 'book_tag:links', 'tag:related', 'book_tag:related=2'],
      )
    }
    // Another parent level, or other columns, are other rows.
    const apart = graphLevels(
      schema,
      author,
      { where: where, params: ['1'] },
      { books: { tags: { book_tags: true } } },
    )
    expect(apart.every((l) => l.rowsOf === undefined)).toBe(true)
  })

  test('rows selected twice are selected once only when they are the same rows, in the order the later level asks', () => {
    const shown = (tree: object) =>
      graphLevels(schema, author, { where: where, params: ['1'] }, tree as never).map(
        (l) =>
          `${l.table.key}:${l.role}${l.rowsOf === undefined ? '' : `=${l.rowsOf}`}${l.ordered ? ':ordered' : ''}`,
      )
    const desc = { $orderBy: { tag_id: 'desc' } }
    // The links come in key order: a one-to-many ordered otherwise has its own select.
    expect(shown({ books: { tags: true, book_tags: desc } })).toEqual([
      'author:roots',
      'book:related',
      'book_tag:links',
      'tag:related',
      'book_tag:related:ordered',
    ])
    // A many-to-many's links, in any order, are the ordered one-to-many's rows.
    expect(shown({ books: { book_tags: desc, tags: true } })).toEqual([
      'author:roots',
      'book:related',
      'book_tag:related:ordered',
      'book_tag:links=2',
      'tag:related',
    ])
    // Filtered or limited, on either side: other rows.
    for (const tree of [
      { books: { tags: true, book_tags: { $where: { tag_id: 1 } } } },
      { books: { tags: true, book_tags: { $limit: 1 } } },
      { books: { book_tags: { $where: { tag_id: 1 } }, tags: true } },
      { books: { book_tags: true, tags: { $where: { name: 'x' } } } },
      { books: { tags: { $where: { name: 'x' } }, book_tags: true } },
    ])
      expect(
        shown(tree).some((l) => l.includes('=')),
        JSON.stringify(tree),
      ).toBe(false)
    // Counted or read further, the rows are still the same rows.
    expect(shown({ books: { tags: true, book_tags: { $count: [], tag: true } } })).toEqual([
      'author:roots',
      'book:related',
      'book_tag:links',
      'tag:related',
      'book_tag:related=2',
      'tag:related',
    ])
  })
})
