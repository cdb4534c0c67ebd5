import { describe, expect, test } from 'vitest'
import { batch, statementAt } from '../../../src/execute/simple-batch.ts'
import type { PlannedStatement } from '../../../src/plan/types.ts'

const statement = (table: string, sql: string, params: (string | null)[][]): PlannedStatement => ({
  kind: 'insert',
  table,
  columns: ['v'],
  sql,
  params,
  rowCount: params[0]?.length ?? 0,
  keys: [],
  fixup: false,
})

const a = statement('a', 'insert into a (v) select d.v::text from unnest($1::text[]) as d(v)', [
  ["it's", '😀'],
])
const b = statement('s.b', 'insert into s.b (v) select d.v::int4 from unnest($1::text[]) as d(v)', [
  ['1', null],
])

describe('batch', () => {
  test('joins the statements with literal parameters between a prefix and a suffix', () => {
    const x = batch([a, b], 'begin', 'commit')
    expect(x.text).toBe(
      `begin;\ninsert into a (v) select d.v::text from unnest('{"it''s","😀"}'::text[]::text[]) as d(v);\n` +
        `insert into s.b (v) select d.v::int4 from unnest('{"1",NULL}'::text[]::text[]) as d(v);\ncommit`,
    )
    expect(batch([a]).text).not.toContain(';')
  })
})

describe('statementAt', () => {
  const x = batch([a, b], 'begin; insert into log values (1)', 'commit')
  // PostgreSQL's positions are 1-based and count characters (the emoji is one).
  const at = (needle: string) => [...x.text.slice(0, x.text.indexOf(needle))].length + 1

  test('maps an error position to its statement, counting characters, not UTF-16 units', () => {
    expect(statementAt({ position: String(at('d.v::text')) }, x)).toBe(a)
    expect(statementAt({ position: String(at('d.v::int4')) }, x)).toBe(b)
  })

  test('the prefix and the suffix belong to no statement', () => {
    expect(statementAt({ position: '3' }, x)).toBeUndefined()
    expect(statementAt({ position: String(at('commit') + 2) }, x)).toBeUndefined()
  })

  test('without a position, the table the server named', () => {
    expect(statementAt({ table_name: 'b' }, x)).toBe(b)
    expect(statementAt({ table_name: 'a' }, x)).toBe(a)
    expect(statementAt({ table_name: 'zzz' }, x)).toBeUndefined()
    expect(statementAt(new Error('x'), x)).toBeUndefined()
  })
})
