import { describe, expect, it } from 'vitest'
import { planStatements } from '../../../src/plan/format-plan.ts'
import { planFlush } from '../../../src/plan/plan-flush.ts'
import { A, B, C, changes, library } from './fixtures.ts'

describe('rows inside a statement', () => {
  it('are sorted by primary key numerically, parameters aligned with keys', () => {
    const plan = planFlush(
      library,
      changes({
        inserts: [10, 9, 100, 1].map((id) => ({ table: 'tag', values: { id, name: `t${id}` } })),
      }),
    )
    const [statement] = planStatements(plan)
    expect(statement!.keys).toEqual([1, 9, 10, 100])
    expect(statement!.params).toEqual([
      ['1', '9', '10', '100'],
      ['t1', 't9', 't10', 't100'],
    ])
  })

  it('are sorted by composite key, column by column', () => {
    const plan = planFlush(
      library,
      changes({
        deletes: [
          { table: 'book_tag', key: { book_id: B, tag_id: 1 } },
          { table: 'book_tag', key: { tag_id: 20, book_id: A } },
          { table: 'book_tag', key: { book_id: A, tag_id: 3 } },
          { table: 'book_tag', key: { book_id: C, tag_id: 0 } },
        ],
      }),
    )
    const [statement] = planStatements(plan)
    expect(statement!.keys).toEqual([
      [A, 3],
      [A, 20],
      [B, 1],
      [C, 0],
    ])
    expect(statement!.params).toEqual([
      [A, A, B, C],
      ['3', '20', '1', '0'],
    ])
  })

  it('are sorted in updates, with their expected versions', () => {
    const plan = planFlush(
      library,
      changes({
        updates: [3, 1, 2].map((id) => ({
          table: 'author',
          key: { id },
          set: { name: `n${id}` },
          expectedVersion: id * 10,
        })),
      }),
    )
    const [statement] = planStatements(plan)
    expect(statement!.params).toEqual([
      ['1', '2', '3'],
      ['n1', 'n2', 'n3'],
      ['10', '20', '30'],
    ])
  })
})
