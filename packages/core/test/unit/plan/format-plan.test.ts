import { describe, expect, it } from 'vitest'
import { formatPlan } from '../../../src/plan/format-plan.ts'
import { planFlush } from '../../../src/plan/plan-flush.ts'
import { changes, library } from './fixtures.ts'

describe('formatPlan', () => {
  it('says when there is nothing to write', () => {
    expect(formatPlan({ waves: [] })).toBe('Flush plan: nothing to write')
  })

  it('lists waves, statements, SQL and abbreviated parameters', () => {
    const plan = planFlush(
      library,
      changes({
        inserts: [
          { table: 'author', values: { id: 1, name: 'x'.repeat(50), version: 1 } },
          ...[1, 2, 3, 4, 5].map((id) => ({ table: 'tag', values: { id, name: `t${id}` } })),
        ],
        deletes: [{ table: 'author', key: { id: 9 } }],
      }),
    )
    const text = formatPlan(plan)
    const lines = text.split('\n')
    expect(lines[0]).toBe('Flush plan: 3 statements in 1 wave')
    expect(lines[1]).toBe('wave 1')
    expect(lines[2]).toBe('  1. insert author [id, name, version]: 1 row')
    expect(lines[3]).toBe(`     ${plan.waves[0]![0]!.sql}`)
    expect(lines[4]).toBe('     $1 = "1"')
    expect(lines[5]).toBe(`     $2 = "${'x'.repeat(40)}…"`)
    expect(lines).toContain('  2. insert tag [id, name]: 5 rows')
    expect(lines).toContain('     $1 = ["1", "2", "3", … 2 more]')
    expect(lines).toContain('     $2 = ["t1", "t2", "t3", … 2 more]')
    expect(lines).toContain('  3. delete author [id, version]: 1 row')
    expect(lines).toContain('     $2 = NULL')
  })

  it('marks fix-ups and numbers statements across waves', () => {
    const plan = planFlush(
      library,
      changes({
        inserts: [
          { table: 'node', values: { id: 1, parent_id: 2 } },
          { table: 'node', values: { id: 2, parent_id: 1, label: 'x' } },
        ],
      }),
    )
    const text = formatPlan(plan)
    expect(text).toContain('Flush plan: 3 statements in 3 waves')
    expect(text).toContain('wave 3\n  3. update (fix-up) node [parent_id]: 1 row')
  })
})
