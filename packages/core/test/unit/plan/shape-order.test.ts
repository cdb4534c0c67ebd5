import { describe, expect, it } from 'vitest'
import type { FlushDraft, PlanInput } from '../../../src/plan/draft.ts'
import { draftFlush } from '../../../src/plan/draft-flush.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'
import { B, library, shapes } from './fixtures.ts'

type Row = Record<string, unknown>

function input(inserts: [string, Row][], updates: [string, Row, Row][] = [], deletes: [string, Row][] = []) {
  return {
    inserts: inserts.map(([table, row]) => ({ table, row })),
    updates: updates.map(([table, key, set]) => ({ table, key, set: Object.keys(set), row: set })),
    deletes: deletes.map(([table, key]) => ({ table, key, set: [], row: key })),
  } satisfies PlanInput
}

/** `kind table` per statement, per wave. */
function outline(draft: FlushDraft): string[][] {
  return draft.waves.map((wave) =>
    wave.map((i) => `${draft.statements[i]!.kind} ${draft.statements[i]!.table.key}`),
  )
}

describe('statements ordered by their shapes', () => {
  it('follow every foreign key between their tables, whether or not the rows reference new rows', () => {
    // c's row references a b row already stored: the rows need no order between c and b.
    const rows = input([
      ['a', { id: 1 }],
      ['b', { id: 1, a_id: 1 }],
      ['c', { id: 1, b_id: 99 }],
    ])
    expect(outline(draftFlush(shapes, rows))).toEqual([['insert a', 'insert c'], ['insert b']])
    expect(outline(draftFlush(shapes, rows, { orderByShape: true }))).toEqual([
      ['insert a'],
      ['insert b'],
      ['insert c'],
    ])
  })

  it('are the rows order when the rows reference each other along every foreign key', () => {
    const rows = input(
      [
        ['a', { id: 1 }],
        ['b', { id: 1, a_id: 1 }],
        ['c', { id: 1, b_id: 1 }],
      ],
      [['b', { id: 7 }, { a_id: 1 }]],
      [
        ['c', { id: 8 }],
        ['b', { id: 8 }],
      ],
    )
    const byRows = draftFlush(shapes, rows)
    const byShape = draftFlush(shapes, rows, { orderByShape: true })
    expect(outline(byShape)).toEqual(outline(byRows))
    expect(outline(byShape)).toEqual([
      ['insert a', 'delete c'],
      ['update b', 'insert b', 'delete b'],
      ['insert c'],
    ])
  })

  it('are found once per set of shapes, whatever the values', () => {
    const first = draftFlush(
      shapes,
      input([
        ['a', { id: 1 }],
        ['b', { id: 1, a_id: 1 }],
      ]),
      { orderByShape: true },
    )
    const second = draftFlush(
      shapes,
      input([
        ['a', { id: 2 }],
        ['b', { id: 2, a_id: 5 }],
      ]),
      { orderByShape: true },
    )
    expect(second.waves).toBe(first.waves)
    const other = draftFlush(shapes, input([['b', { id: 3, a_id: 5 }]]), { orderByShape: true })
    expect(other.waves).not.toBe(first.waves)
  })

  it('are kept for 512 sets of shapes per schema at most', () => {
    const wide = defineSchema({
      t: {
        columns: Object.fromEntries(
          ['id', ...Array.from({ length: 10 }, (_, i) => `c${i}`)].map((name) => [
            name,
            { type: 'int4', nullable: name !== 'id' },
          ]),
        ),
        primaryKey: ['id'],
      },
    })
    /** An insert writing the columns of the bits of `n`: a shape per `n`. */
    const shaped = (n: number) => {
      const row: Row = { id: 1 }
      for (let i = 0; i < 10; i++) if (n & (1 << i)) row[`c${i}`] = i
      return draftFlush(wide, input([['t', row]]), { orderByShape: true }).waves
    }
    const first = shaped(0)
    for (let n = 1; n < 512; n++) shaped(n)
    expect(shaped(0), 'kept among 512').toBe(first)
    shaped(512) // the 513th: the schema's orders start afresh
    expect(shaped(0), 'found again').not.toBe(first)
    expect(shaped(0)).toEqual(first)
  })

  it('are left to the rows where the tables make a cycle: fix-ups break it', () => {
    // person <-> passport, NOT NULL: the rows that close the cycle cannot be inserted in any order.
    const closed = input([
      ['person', { id: 1, passport_id: 1 }],
      ['passport', { id: 1, person_id: 1 }],
    ])
    expect(() => draftFlush(shapes, closed, { orderByShape: true })).toThrow(/cycle/)
    // The same tables, rows that reference none of the new rows: no cycle, one wave.
    const open = input([
      ['person', { id: 2, passport_id: 40 }],
      ['passport', { id: 2, person_id: 40 }],
    ])
    expect(outline(draftFlush(shapes, open, { orderByShape: true }))).toEqual([
      ['insert passport', 'insert person'],
    ])
    // author <-> book is nullable: the rows' order breaks it with a fix-up, with or without shapes.
    const cycle = input([
      ['author', { id: 1, name: 'Ann', fav_book_id: B }],
      ['book', { id: B, title: 'T', author_id: 1 }],
    ])
    const byShape = outline(draftFlush(library, cycle, { orderByShape: true }))
    expect(byShape).toEqual(outline(draftFlush(library, cycle)))
    expect(byShape).toEqual([['insert author'], ['insert book'], ['update author']])
  })

  it('take a deferred foreign key as no order, as the rows do', () => {
    const rows = input([
      ['x', { id: 1, y_id: 1 }],
      ['y', { id: 1, x_id: 1 }],
    ])
    expect(outline(draftFlush(shapes, rows, { orderByShape: true }))).toEqual(
      outline(draftFlush(shapes, rows)),
    )
  })
})
