import { describe, expect, it } from 'vitest'
import { PipeflushError } from '../../../src/errors.ts'
import { planStatements } from '../../../src/plan/format-plan.ts'
import { planFlush } from '../../../src/plan/plan-flush.ts'
import type { ChangeSet } from '../../../src/plan/types.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'
import { A, B, C, changes, library, outline, shapes } from './fixtures.ts'

describe('planFlush waves', () => {
  it('returns no waves for an empty change set', () => {
    expect(planFlush(library, changes({}))).toEqual({ waves: [] })
    expect(planFlush(library, changes({ updates: [{ table: 'author', key: { id: 1 }, set: {} }] }))).toEqual({
      waves: [],
    })
  })

  it('orders a chain a -> b -> c in three waves, whatever the input order', () => {
    const plan = planFlush(
      shapes,
      changes({
        inserts: [
          { table: 'c', values: { id: 1, b_id: 1 } },
          { table: 'b', values: { id: 1, a_id: 1 } },
          { table: 'a', values: { id: 1 } },
        ],
      }),
    )
    expect(outline(plan)).toEqual([['insert a'], ['insert b'], ['insert c']])
  })

  it('adds edges only for rows that reference new rows', () => {
    const plan = planFlush(
      shapes,
      changes({
        inserts: [
          { table: 'c', values: { id: 1, b_id: 99 } }, // existing b row
          { table: 'b', values: { id: 1, a_id: 1 } },
          { table: 'a', values: { id: 1 } },
        ],
      }),
    )
    expect(outline(plan)).toEqual([['insert a', 'insert c'], ['insert b']])
  })

  it('matches foreign keys on normalized values (int8 5 = 5n = "5")', () => {
    const plan = planFlush(
      library,
      changes({
        inserts: [
          { table: 'author', values: { id: 5n, name: 'Ann', version: 1 } },
          { table: 'book', values: { id: A, author_id: '5' } },
        ],
      }),
    )
    expect(outline(plan)).toEqual([['insert author'], ['insert book']])
  })

  it('writes inserts into unrelated tables in one wave, in table order, whatever the input order', () => {
    const plan = planFlush(
      library,
      changes({
        inserts: [
          { table: 'tag', values: { id: 1, name: 'a' } },
          { table: 'node', values: { id: 1, parent_id: null } },
        ],
      }),
    )
    expect(outline(plan)).toEqual([['insert node', 'insert tag']])
  })

  it('puts a single insert after the update that waits for nothing, and a delete last, in one wave', () => {
    const plan = planFlush(
      library,
      changes({
        inserts: [{ table: 'tag', values: { id: 1, name: 'a' } }],
        updates: [{ table: 'node', key: { id: 7 }, set: { label: 'x' } }],
        deletes: [{ table: 'event', key: { id: 3 } }],
      }),
    )
    expect(outline(plan)).toEqual([['update node', 'insert tag', 'delete event']])
  })

  it('orders a single insert before the update that points at its row', () => {
    const plan = planFlush(
      library,
      changes({
        inserts: [{ table: 'node', values: { id: 1, parent_id: null } }],
        updates: [{ table: 'node', key: { id: 7 }, set: { parent_id: 1 } }],
      }),
    )
    expect(outline(plan)).toEqual([['insert node'], ['update node']])
  })

  it('needs no order for a self reference inside one insert', () => {
    const plan = planFlush(
      library,
      changes({
        inserts: [
          { table: 'node', values: { id: 2, parent_id: 3 } },
          { table: 'node', values: { id: 3, parent_id: 1 } },
          { table: 'node', values: { id: 1, parent_id: null } },
        ],
      }),
    )
    expect(outline(plan)).toEqual([['insert node']])
    expect(plan.waves[0]![0]!.params).toEqual([
      ['1', '2', '3'],
      [null, '3', '1'],
    ])
  })

  it('orders inserts of one table with different column sets by their self references', () => {
    const plan = planFlush(
      library,
      changes({
        inserts: [
          { table: 'node', values: { id: 2, parent_id: 1 } },
          { table: 'node', values: { id: 1, parent_id: null, label: 'root' } },
        ],
      }),
    )
    expect(plan.waves.map((wave) => wave.map((s) => s.columns.join(',')))).toEqual([
      ['id,parent_id,label'],
      ['id,parent_id'],
    ])
  })

  it('breaks a self-reference cycle across two statements at the nullable key, with a fix-up', () => {
    const plan = planFlush(
      library,
      changes({
        inserts: [
          { table: 'node', values: { id: 1, parent_id: 2 } },
          { table: 'node', values: { id: 2, parent_id: 1, label: 'x' } },
        ],
      }),
    )
    expect(outline(plan)).toEqual([['insert node'], ['insert node'], ['update node (fix-up)']])
    // Both edges cost one row: the tie goes to the first statement in order (columns id, parent_id).
    const [first, second, fixup] = planStatements(plan)
    expect(first!.params).toEqual([['2'], [null], ['x']])
    expect(second!.params).toEqual([['1'], ['2']])
    expect(fixup).toMatchObject({ columns: ['parent_id'], keys: [2], params: [['2'], ['1']], fixup: true })
  })

  it('breaks a nullable cycle between tables with the fewest fix-ups', () => {
    const plan = planFlush(
      library,
      changes({
        inserts: [
          { table: 'book', values: { id: A, author_id: 1 } },
          { table: 'book', values: { id: B, author_id: 1 } },
          { table: 'author', values: { id: 1, name: 'Ann', fav_book_id: A, version: 1 } },
          { table: 'author', values: { id: 2, name: 'Bob', fav_book_id: null, version: 1 } },
        ],
      }),
    )
    expect(outline(plan)).toEqual([['insert author'], ['insert book'], ['update author (fix-up)']])
    const [authors, , fixup] = planStatements(plan)
    expect(authors!.params[2]).toEqual([null, null])
    expect(fixup).toMatchObject({
      kind: 'update',
      table: 'author',
      columns: ['fav_book_id'],
      rowCount: 1,
      keys: [1],
    })
    expect(fixup!.params).toEqual([['1'], [A]])
    expect(fixup!.sql).not.toContain('"version"')
  })

  it('breaks the edge with fewer rows to fix when both sides are nullable', () => {
    const loop = defineSchema({
      p: {
        columns: { id: 'int4', q_id: { type: 'int4', nullable: true } },
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['q_id'], references: 'q' }],
      },
      q: {
        columns: { id: 'int4', p_id: { type: 'int4', nullable: true } },
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['p_id'], references: 'p' }],
      },
    })
    const inserts = (pRefs: number, qRefs: number): ChangeSet =>
      changes({
        inserts: [
          ...[1, 2, 3].map((id) => ({ table: 'p', values: { id, q_id: id <= pRefs ? 1 : null } })),
          ...[1, 2, 3].map((id) => ({ table: 'q', values: { id, p_id: id <= qRefs ? 1 : null } })),
        ],
      })
    expect(outline(planFlush(loop, inserts(1, 3)))).toEqual([
      ['insert p'],
      ['insert q'],
      ['update p (fix-up)'],
    ])
    expect(outline(planFlush(loop, inserts(3, 1)))).toEqual([
      ['insert q'],
      ['insert p'],
      ['update q (fix-up)'],
    ])
  })

  it('orders a cycle of initially deferred keys freely and a DEFERRABLE INITIALLY IMMEDIATE key like any other', () => {
    const plan = planFlush(
      shapes,
      changes({
        inserts: [
          { table: 'x', values: { id: 1, y_id: 1 } },
          { table: 'y', values: { id: 1, x_id: 1 } },
        ],
      }),
    )
    // x.y_id is initially deferred: no edge; y.x_id is only deferrable: x before y.
    expect(outline(plan)).toEqual([['insert x'], ['insert y']])
    expect(planStatements(plan).some((s) => s.fixup)).toBe(false)
  })

  it('puts a cycle of initially deferred keys in one wave without fix-ups', () => {
    const deferred = defineSchema({
      x: {
        columns: { id: 'int4', y_id: 'int4' },
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['y_id'], references: 'y', initiallyDeferred: true }],
      },
      y: {
        columns: { id: 'int4', x_id: 'int4' },
        primaryKey: ['id'],
        foreignKeys: [{ columns: ['x_id'], references: 'x', initiallyDeferred: true }],
      },
    })
    const plan = planFlush(
      deferred,
      changes({
        inserts: [
          { table: 'y', values: { id: 1, x_id: 1 } },
          { table: 'x', values: { id: 1, y_id: 1 } },
        ],
      }),
    )
    expect(outline(plan)).toEqual([['insert x', 'insert y']])
  })

  it('throws UNRESOLVABLE_CYCLE naming tables and foreign keys for a NOT NULL cycle', () => {
    const plan = () =>
      planFlush(
        shapes,
        changes({
          inserts: [
            { table: 'person', values: { id: 1, passport_id: 1 } },
            { table: 'passport', values: { id: 1, person_id: 1 } },
          ],
        }),
      )
    expect(plan).toThrow(PipeflushError)
    expect(plan).toThrow(expect.objectContaining({ code: 'UNRESOLVABLE_CYCLE' }))
    expect(plan).toThrow(
      'person -> passport (person_passport_id_fkey; NOT NULL), passport -> person (passport_person_id_fkey; NOT NULL)',
    )
  })

  it('does not throw when NOT NULL cyclic tables have new rows that do not reference each other', () => {
    const plan = planFlush(
      shapes,
      changes({
        inserts: [
          { table: 'person', values: { id: 1, passport_id: 10 } },
          { table: 'passport', values: { id: 1, person_id: 1 } },
        ],
      }),
    )
    expect(outline(plan)).toEqual([['insert person'], ['insert passport']])
  })

  it('orders a many-to-many join table after both sides', () => {
    const plan = planFlush(
      library,
      changes({
        inserts: [
          { table: 'book_tag', values: { book_id: A, tag_id: 5 } },
          { table: 'book_tag', values: { book_id: A, tag_id: 6 } },
          { table: 'tag', values: { id: 5, name: 'sf' } },
          { table: 'book', values: { id: A, author_id: 1 } },
        ],
      }),
    )
    expect(outline(plan)).toEqual([['insert book', 'insert tag'], ['insert book_tag']])
    expect(plan.waves[1]![0]!.keys).toEqual([
      [A, 5],
      [A, 6],
    ])
  })

  it('inserts a new parent before an update that points a row at it', () => {
    const plan = planFlush(
      library,
      changes({
        inserts: [{ table: 'author', values: { id: 3, name: 'Cy', version: 1 } }],
        updates: [
          { table: 'book', key: { id: A }, set: { author_id: 3 } },
          { table: 'book', key: { id: B }, set: { title: 'unrelated' } },
        ],
      }),
    )
    expect(plan.waves.map((wave) => wave.map((s) => `${s.kind} ${s.table} ${s.columns.join(',')}`))).toEqual([
      ['update book title', 'insert author id,name,version'],
      ['update book author_id'],
    ])
  })

  it('runs an update that moves rows away from a deleted parent before the delete', () => {
    const plan = planFlush(
      library,
      changes({
        updates: [{ table: 'book', key: { id: A }, set: { author_id: 2 } }],
        deletes: [{ table: 'author', key: { id: 1 }, expectedVersion: 3 }],
      }),
    )
    expect(outline(plan)).toEqual([['update book'], ['delete author']])
  })

  it('runs an update of rows a cascade may delete before the delete', () => {
    const plan = planFlush(
      library,
      changes({
        updates: [
          { table: 'book', key: { id: A }, set: { title: 'x' } },
          { table: 'tag', key: { id: 5 }, set: { name: 'y' } },
        ],
        deletes: [{ table: 'author', key: { id: 1 } }],
      }),
    )
    // book.author_id cascades; tag has no key to author.
    expect(outline(plan)).toEqual([['update book', 'update tag'], ['delete author']])
  })

  it('deletes children before parents, cascade or not', () => {
    const plan = planFlush(
      library,
      changes({
        deletes: [
          { table: 'author', key: { id: 1 } },
          { table: 'book', key: { id: A } },
          { table: 'book_tag', key: { book_id: A, tag_id: 5 } },
          { table: 'tag', key: { id: 5 } },
        ],
      }),
    )
    // author.fav_book_id -> book closes a cycle with book.author_id: see the next test.
    // Each delete as late as the order lets it; the tag's after the author's, whose cascade (through
    // book) may remove book_tag rows not in the unit of work that still hold the tag.
    expect(outline(plan)).toEqual([
      ['update author (fix-up)', 'delete book_tag'],
      ['delete book'],
      ['delete author'],
      ['delete tag'],
    ])
  })

  it('breaks a delete cycle at the nullable key, set to NULL first, keeping the cascade order', () => {
    // author.fav_book_id -> book (nullable, no action); book.author_id -> author (cascade). The
    // author's favourite may be the deleted book (a change set's stored values are not known): it is
    // set to NULL first, or deleting the book would fail on it.
    const plan = planFlush(
      library,
      changes({
        deletes: [
          { table: 'author', key: { id: 1 } },
          { table: 'book', key: { id: A } },
        ],
      }),
    )
    expect(outline(plan)).toEqual([['update author (fix-up)'], ['delete book'], ['delete author']])
    const fixup = plan.waves[0]![0]!
    expect([fixup.columns, fixup.params, fixup.keys, fixup.sql]).toEqual([
      ['fav_book_id'],
      [['1'], [null]],
      [1],
      expect.stringMatching(
        /^with w as \(update "public"\."author" as t set "fav_book_id" = \$2::text::uuid where/,
      ),
    ])
    expect(fixup.sql).not.toMatch(/version/)
  })

  it('orders updates, inserts and deletes in the fewest waves, statements sorted within a wave', () => {
    const plan = planFlush(
      library,
      changes({
        deletes: [{ table: 'tag', key: { id: 9 } }],
        updates: [{ table: 'node', key: { id: 4 }, set: { label: 'x' } }],
        inserts: [
          { table: 'tag', values: { id: 5, name: 'sf' } },
          { table: 'author', values: { id: 1, name: 'Ann', version: 1 } },
        ],
      }),
    )
    expect(outline(plan)).toEqual([['update node', 'insert author', 'insert tag', 'delete tag']])
  })

  it('updates a parent before inserting its child in the same wave, so the child never holds a lock the update must upgrade', () => {
    // The insert's foreign-key check locks author 1 (KEY SHARE); had it run first, the update would
    // upgrade that lock, which a concurrent update of author 1 turns into an error or a deadlock.
    const plan = planFlush(
      library,
      changes({
        inserts: [{ table: 'book', values: { id: A, author_id: 1 } }],
        updates: [{ table: 'author', key: { id: 1 }, set: { name: 'Ann' }, expectedVersion: 1 }],
      }),
    )
    expect(outline(plan)).toEqual([['update author', 'insert book']])
  })

  it('is deterministic whatever the order of the change set', () => {
    const inserts = [
      { table: 'book', values: { id: A, author_id: 1 } },
      { table: 'book', values: { id: B, author_id: 2, title: 't' } },
      { table: 'book', values: { id: C, author_id: 1 } },
      { table: 'author', values: { id: 1, name: 'Ann', fav_book_id: B, version: 1 } },
      { table: 'author', values: { id: 2, name: 'Bob', fav_book_id: A, version: 1 } },
      { table: 'book_tag', values: { book_id: C, tag_id: 5 } },
      { table: 'tag', values: { id: 5, name: 'sf' } },
    ]
    const first = planFlush(library, changes({ inserts }))
    const second = planFlush(library, changes({ inserts: [...inserts].reverse() }))
    expect(second).toEqual(first)
    expect(outline(first)).toEqual([
      ['insert author', 'insert tag'],
      ['insert book', 'insert book'],
      ['update author (fix-up)', 'insert book_tag'],
    ])
  })

  it('deletes a row before inserting a row with its key, where the insert went first', () => {
    const deletes = [{ table: 'tag', key: { id: 5 } }]
    const reused = planFlush(
      library,
      changes({ inserts: [{ table: 'tag', values: { id: 5, name: 'new' } }], deletes }),
    )
    expect(outline(reused)).toEqual([['delete tag'], ['insert tag']])
    // Another key (int8 5 against the text "5" is the same key): nothing handed, one wave as before.
    const other = planFlush(
      library,
      changes({ inserts: [{ table: 'tag', values: { id: 6, name: 'new' } }], deletes }),
    )
    expect(outline(other)).toEqual([['insert tag', 'delete tag']])
    const text = planFlush(
      library,
      changes({ inserts: [{ table: 'tag', values: { id: '5', name: 'n' } }], deletes }),
    )
    expect(outline(text)).toEqual([['delete tag'], ['insert tag']])
  })

  it("knows a change set's stored rows by their keys only: their other unique values are not compared", () => {
    const plan = planFlush(
      library,
      changes({
        inserts: [{ table: 'tag', values: { id: 7, name: 'sf' } }],
        updates: [{ table: 'tag', key: { id: 5 }, set: { name: 'fantasy' } }],
        deletes: [{ table: 'tag', key: { id: 6 } }],
      }),
    )
    expect(outline(plan)).toEqual([['update tag', 'insert tag', 'delete tag']])
  })
})
