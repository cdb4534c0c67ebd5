import { describe, expect, it } from 'vitest'
import { ShapeCache } from '../../../src/plan/statements/shape-cache.ts'
import { statementSql } from '../../../src/plan/statements/statement-sql.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'

const spec = (nameType: 'text' | 'varchar') =>
  defineSchema({ t: { columns: { id: 'int8', name: nameType }, primaryKey: ['id'] } }).tables.get('t')!

describe('ShapeCache', () => {
  it('makes a shape once per table definition, shared by models read separately', () => {
    const cache = new ShapeCache<string>()
    let made = 0
    const make = () => `v${++made}`
    const first = spec('text')
    const again = spec('text') // another model of the same definition (another connect)
    expect(again).not.toBe(first)
    expect(cache.get(first, 's', make)).toBe('v1')
    expect(cache.get(again, 's', make)).toBe('v1')
    expect(cache.get(first, 'other', make)).toBe('v2')
    expect(made).toBe(2)
  })

  it('keeps tables whose definitions differ apart', () => {
    const cache = new ShapeCache<string>()
    expect(cache.get(spec('text'), 's', () => 'text')).toBe('text')
    expect(cache.get(spec('varchar'), 's', () => 'varchar')).toBe('varchar')
  })

  it('gives statementSql the text of each definition', () => {
    expect(statementSql(spec('text'), 'insert', ['id', 'name'], false, undefined)).toContain('d."name"::text')
    expect(statementSql(spec('varchar'), 'insert', ['id', 'name'], false, undefined)).toContain(
      'd."name"::varchar',
    )
  })
})
