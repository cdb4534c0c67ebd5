import { describe, expect, test } from 'vitest'
import { copyRowsOption, DEFAULT_COPY_ROWS } from '../../../src/options.ts'
import { planFlush } from '../../../src/plan/plan-flush.ts'
import type { ChangeSet, FlushPlan } from '../../../src/plan/types.ts'
import { buildSchemaModel, buildTableModel } from '../../../src/schema/build-table.ts'
import { A, B, C, changes, library, outline } from './fixtures.ts'

const tags = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => ({ table: 'tag', values: { id: from + i, name: `t${from + i}` } }))

/** The plan a flush of `set` sends: server values read back (`reading`), inserts of `minRows`+ rows as COPY. */
function sent(set: ChangeSet, minRows: number, reading = true): FlushPlan {
  return planFlush(library, set, { serverValues: () => reading, copyRows: minRows })
}

describe('COPY in a plan (copyRows)', () => {
  test('an insert of at least minRows rows goes as COPY: same columns, rows, keys and order', () => {
    const plain = planFlush(library, changes({ inserts: tags(3) }))
    const plan = sent(changes({ inserts: tags(3) }), 3)
    const [copy] = plan.waves.flat()
    expect(copy).toEqual({
      ...plain.waves[0]![0],
      sql: 'copy "public"."tag" ("id", "name") from stdin',
      copy: true,
    })
    expect(copy?.params).toEqual([
      ['1', '2', '3'],
      ['t1', 't2', 't3'],
    ])
  })

  test('below minRows, or minRows Infinity: the plan without COPY', () => {
    const set = changes({ inserts: tags(3) })
    const plan = planFlush(library, set, { serverValues: () => true })
    expect(sent(set, 4)).toEqual(plan)
    expect(sent(set, Number.POSITIVE_INFINITY)).toEqual(plan)
  })

  test('parent and child inserts both as COPY keep their waves', () => {
    const set = changes({
      inserts: [
        { table: 'author', values: { id: 1, name: 'Ann', fav_book_id: null, version: 1 } },
        { table: 'author', values: { id: 2, name: 'Bob', fav_book_id: null, version: 1 } },
        { table: 'book', values: { id: A, author_id: 1, title: 'x', tags: [] } },
        { table: 'book', values: { id: B, author_id: 2, title: 'y', tags: [] } },
        { table: 'book', values: { id: C, author_id: 2, title: null, tags: ['a'] } },
      ],
    })
    const plan = sent(set, 2)
    expect(outline(plan)).toEqual([['insert author'], ['insert book']])
    expect(plan.waves.flat().map((s) => s.copy)).toEqual([true, true])
  })

  test('never an upsert, an update, a delete, nor an insert that reads server values back', () => {
    const upserts = tags(3).map((t) => ({ ...t, upsert: { conflict: ['id'], update: ['name'] } }))
    expect(sent(changes({ inserts: upserts }), 1).waves.flat()[0]?.copy).toBeUndefined()
    const edits = changes({
      updates: [1, 2, 3].map((id) => ({ table: 'tag', key: { id }, set: { name: `n${id}` } })),
      deletes: [4, 5, 6].map((id) => ({ table: 'tag', key: { id } })),
    })
    expect(
      sent(edits, 1)
        .waves.flat()
        .map((s) => [s.kind, s.copy]),
    ).toEqual([
      ['update', undefined],
      ['delete', undefined],
    ])
    // book rows leave out `tags` (it has a default): read back, unless the policy turns reading off.
    const books = changes({
      inserts: [A, B].map((id) => ({ table: 'book', values: { id, author_id: 1, title: 't' } })),
    })
    const reading = sent(books, 1).waves.flat()[0]
    expect([reading?.returning, reading?.copy]).toEqual([['id', 'tags'], undefined])
    expect(sent(books, 1, false).waves.flat()[0]?.copy).toBe(true)
  })

  test('never into a table COPY would treat unlike INSERT (row-level security, rules)', () => {
    const table = (copyable: boolean) =>
      buildTableModel({
        schema: 'public',
        name: 'secret',
        columns: [
          { name: 'id', type: 'int8' },
          { name: 'v', type: 'text' },
        ],
        primaryKey: ['id'],
        copyable,
      })
    const rows = changes({
      inserts: [1, 2].map((id) => ({ table: 'secret', values: { id, v: 'x' } })),
    })
    for (const copyable of [true, false]) {
      const schema = buildSchemaModel([table(copyable)])
      const [statement] = planFlush(schema, rows, { copyRows: 1 }).waves.flat()
      expect(statement?.copy ?? false).toBe(copyable)
    }
    expect(
      buildTableModel({
        schema: 'public',
        name: 't',
        columns: [{ name: 'id', type: 'int8' }],
        primaryKey: ['id'],
      }).copyable,
    ).toBe(true)
  })
})

describe('copyRowsOption', () => {
  test('a positive integer or Infinity; left out: the default', () => {
    expect(copyRowsOption(undefined)).toBe(DEFAULT_COPY_ROWS)
    expect(copyRowsOption(1)).toBe(1)
    expect(copyRowsOption(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY)
  })

  test.each([0, -1, 1.5, Number.NaN, Number.NEGATIVE_INFINITY, '10', null, 10n])('refuses %s', (bad) => {
    expect(() => copyRowsOption(bad)).toThrow(
      expect.objectContaining({
        code: 'INVALID_CONFIG',
        message: expect.stringContaining('copyRows must be a positive integer or Infinity'),
      }),
    )
  })
})
