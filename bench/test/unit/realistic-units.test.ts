import { describe, expect, test } from 'vitest'
import { generateUnits, ROUND_SIZE } from '../../src/realistic/generate.ts'
import { readStatements, writeStatements } from '../../src/realistic/raw-statements.ts'
import { isRef, tablesWritten } from '../../src/realistic/unit.ts'

const units = generateUnits(7, 400)

describe('generated units of work', () => {
  test('the same seed gives the same units; another seed, others', () => {
    expect(generateUnits(7, 400)).toEqual(units)
    expect(generateUnits(8, 40)).not.toEqual(units.slice(0, 40))
  })

  test('a realistic mix: every kind, varying tables and column sets, every unit writes', () => {
    const kinds = new Set(units.map((u) => u.kind))
    expect([...kinds].sort()).toEqual(['amend', 'cancel', 'checkout', 'profile', 'restock', 'ship', 'signup'])
    const tableCounts = new Set(units.map((u) => tablesWritten(u).size))
    expect(Math.min(...tableCounts)).toBe(1)
    expect(Math.max(...tableCounts)).toBeGreaterThanOrEqual(5)
    const columnSets = new Set(
      units.flatMap((u) => u.updates.map((x) => `${x.table}:${Object.keys(x.set).sort()}`)),
    )
    expect(columnSets.size).toBeGreaterThan(10)
    expect(units.every((u) => u.inserts.length + u.updates.length + u.deletes.length > 0)).toBe(true)
    expect(units.some((u) => u.deletes.length > 0)).toBe(true)
  })

  test('updated and deleted rows are among those read; references point to earlier new rows', () => {
    for (const u of units) {
      const read = new Set(
        u.reads.flatMap((r) => (r.column === 'id' ? r.ids.map((id) => `${r.table}:${id}`) : [])),
      )
      const lineParents = new Set(u.reads.filter((r) => r.column === 'purchase_id').flatMap((r) => r.ids))
      for (const c of [...u.updates, ...u.deletes]) {
        if (c.table === 'purchase_line') expect(lineParents.size).toBe(1)
        else expect(read.has(`${c.table}:${c.id}`), `${u.kind}: ${c.table} ${c.id}`).toBe(true)
      }
      u.inserts.forEach((row, i) => {
        for (const v of Object.values(row.values)) if (isRef(v)) expect(v.ref).toBeLessThan(i)
      })
    }
  })

  test('the units of a round never touch the same seeded row', () => {
    for (let i = 0; i < units.length; i += ROUND_SIZE) {
      const seen = new Set<string>()
      for (const u of units.slice(i, i + ROUND_SIZE)) {
        const touched = new Set([
          ...u.reads.flatMap((r) =>
            r.ids.map((id) => `${r.column === 'purchase_id' ? 'purchase' : r.table}:${id}`),
          ),
          ...u.updates.filter((x) => x.table !== 'purchase_line').map((x) => `${x.table}:${x.id}`),
        ])
        for (const t of touched) {
          expect(seen.has(t), `round ${i / ROUND_SIZE}: ${t}`).toBe(false)
          seen.add(t)
        }
      }
    }
  })

  test('hand-written SQL of a unit: one statement per row, parents first, client-side ids', () => {
    const checkout = units.find((u) => u.kind === 'checkout' && u.inserts.length >= 4)
    if (!checkout) throw new Error('no checkout')
    let id = 100
    const statements = writeStatements(checkout, () => id++)
    expect(statements).toHaveLength(checkout.inserts.length + checkout.updates.length)
    expect(
      statements
        .filter((s) => s.text.startsWith('insert into purchase_line'))
        .every((s) => s.params[1] === 100 || s.params[1] === 101),
    ).toBe(true)
    expect(readStatements(checkout)[0]?.text).toMatch(/^select \* from \w+ where id = any\(\$1::int8\[\]\)$/)
  })
})
