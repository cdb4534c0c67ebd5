import { describe, expect, test } from 'vitest'
import { statementName } from '../../../src/connection/statement-name.ts'
import { inlineParams } from '../../../src/drivers/inline-params.ts'
import { pipelined, simpleBatch, statementAt, statementParams } from '../../../src/flush/statement-text.ts'
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

describe('simpleBatch', () => {
  test('joins plain texts and statements with literal parameters', () => {
    const x = simpleBatch(['insert into log values (1)', a, b])
    expect(x.text).toBe(
      'insert into log values (1);\n' +
        `insert into a (v) select d.v::text from unnest('{"it''s","😀"}'::text[]) as d(v);\n` +
        `insert into s.b (v) select d.v::int4 from unnest('{"1",NULL}'::text[]) as d(v)`,
    )
    expect(simpleBatch([a]).text).not.toContain(';')
  })
})

describe('statementParams', () => {
  const one = statement('c', 'insert into c (v, w) values ($1::text::int4, $2::text::text)', [['7'], [null]])

  test('sends a text[] literal per column for several rows, the texts themselves for one row', () => {
    expect(statementParams(a)).toEqual(['{"it\'s","😀"}'])
    expect(statementParams(one)).toEqual(['7', null])
    expect(pipelined(one, true)).toEqual({ text: one.sql, params: ['7', null], name: statementName(one.sql) })
    expect(simpleBatch([one]).text).toBe(`insert into c (v, w) values ('7'::text::int4, null::text::text)`)
  })
})

describe('inlineParams', () => {
  test('replaces $n outside quotes and identifiers; null is NULL; backslashes need an escape string', () => {
    expect(
      inlineParams(`select $1::text, '$1', "$1", $2::text, $10::text`, [
        'a',
        null,
        ...Array(7).fill('x'),
        'j',
      ]),
    ).toBe(`select 'a'::text, '$1', "$1", null::text, 'j'::text`)
    expect(inlineParams('select $1::text', ['a\\b'])).toBe(`select E'a\\\\b'::text`)
    expect(() => inlineParams('select $2::text', ['a'])).toThrowError(
      expect.objectContaining({
        code: 'INTERNAL_ERROR',
        message: expect.stringMatching(/has \$2 but 1 parameters/),
      }),
    )
  })
})

describe('statementAt', () => {
  const x = simpleBatch(['insert into log values (1)', a, b])
  // PostgreSQL's positions are 1-based and count characters (the emoji is one).
  const at = (needle: string) => [...x.text.slice(0, x.text.indexOf(needle))].length + 1

  test('maps an error position to its statement, counting characters, not UTF-16 units', () => {
    expect(statementAt(x, { position: at('d.v::text') })).toBe(a)
    expect(statementAt(x, { position: at('d.v::int4') })).toBe(b)
  })

  test('texts pipeflush adds belong to no statement', () => {
    expect(statementAt(x, { position: 3 })).toBeUndefined()
  })

  test('without a position, the first statement on the table the server named', () => {
    expect(statementAt(x, { table: 'b' })).toBe(b)
    expect(statementAt(x, { table: 'a' })).toBe(a)
    expect(statementAt(x, { table: 'zzz' })).toBeUndefined()
    expect(statementAt(x, {})).toBeUndefined()
  })

  test('without a position, the statement after those the server completed, before what it named', () => {
    expect(statementAt(x, { completed: 0, table: 'b' })).toBeUndefined() // the added text failed
    expect(statementAt(x, { completed: 1, table: 'b' })).toBe(a)
    expect(statementAt(x, { completed: 2 })).toBe(b)
    // All completed: the error came as the transaction ended (a deferred constraint), by its table.
    expect(statementAt(x, { completed: 3, table: 'a' })).toBe(a)
  })
})

describe('statementName', () => {
  test("one name per text, stable, within PostgreSQL's 63 bytes", () => {
    const n = statementName(a.sql)
    expect(n).toBe(statementName(a.sql))
    expect(n).not.toBe(statementName(b.sql))
    expect(n).toMatch(/^pf_[A-Za-z0-9_-]{22}$/)
  })
})
