import { describe, expect, it } from 'vitest'
import type { ValueMapping } from '../../../src/model/model.ts'
import { decodeRow } from '../../../src/read/decode-row.ts'
import { checkSelectedColumns, ownStatement } from '../../../src/read/own-sql.ts'
import type { ReadStatement } from '../../../src/read/read-statement.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'
import { thrown } from '../track/fixtures.ts'

// The application's own SQL (`select`, `loadRows`), checked before it joins a read batch, its rows
// before they are tracked; and what a stored value that cannot be read says of its row.

const whole: ValueMapping = {
  read: (v) => {
    const n = Number(v)
    if (!Number.isSafeInteger(n)) throw new Error('not a whole number')
    return n
  },
  write: (v) => String(v),
}
const schema = defineSchema({
  price: { columns: { id: 'int4', amount: { sql: 'numeric', mapping: whole } }, primaryKey: ['id'] },
  seat: { columns: { row: 'text', n: 'int4', booked: 'timestamptz' }, primaryKey: ['row', 'n'] },
})
const price = schema.tables.get('price')!
const seat = schema.tables.get('seat')!

function problem(statement: unknown): string {
  const e = thrown(() => ownStatement(statement as ReadStatement, 'select'))
  expect(e.code).toBe('INVALID_VALUE')
  expect(e.message).toMatch(/^select: .*\. Nothing was sent\.$/)
  return e.message.slice('select: '.length, -'. Nothing was sent.'.length)
}

describe('ownStatement', () => {
  it('takes a text with one text (or null) for each of $1..$n, params left out as none', () => {
    const s = { text: 'select $2::int + $1::int as n, $1::text as t', params: ['1', null] }
    expect(ownStatement(s, 'select')).toBe(s)
    expect(ownStatement({ text: 'select 1' } as ReadStatement, 'select')).toEqual({
      text: 'select 1',
      params: [],
    })
  })

  it('counts the parameters as the server reads them: not in constants, quoted names or comments', () => {
    const text = `select '$2', "a$3", E'\\' $4', $$ $5 $$, $q$ $6 $q$, x$7, $1::text /* $8 /* $9 */ $10 */ -- $11
      from t`
    expect(ownStatement({ text, params: ['a'] }, 'select').params).toEqual(['a'])
    expect(problem({ text, params: [] })).toBe('the text uses $1 but 0 parameters were given')
  })

  it('refuses a count that does not match, a parameter not used, $0', () => {
    expect(problem({ text: 'select $1::int', params: [] })).toBe(
      'the text uses $1 but 0 parameters were given',
    )
    expect(problem({ text: 'select $2::int, $1::int', params: ['1', '2', '3'] })).toBe(
      'the text uses $1..$2 but 3 parameters were given',
    )
    expect(problem({ text: 'select 1', params: ['1'] })).toBe(
      'the text uses no parameters but 1 parameter was given',
    )
    expect(problem({ text: 'select $3::int, $1::int', params: ['1', '2', '3'] })).toBe(
      "the text uses $1..$3 but does not use $2 (the server cannot tell an unused parameter's type)",
    )
    expect(problem({ text: 'select $0::int', params: [] })).toBe(
      'the text uses $0: parameters are numbered from $1',
    )
  })

  it('refuses a parameter that is not a text or null, without showing it', () => {
    for (const [given, shown] of [
      [5, 'a number'],
      [5n, 'a bigint'],
      [true, 'true'],
      [undefined, 'undefined'],
      [new Date(0), 'a Date'],
      [['a'], 'an array of 1'],
    ] as const) {
      const e = thrown(() => ownStatement({ text: 'select $1::text', params: [given as never] }, 'select'))
      expect(e.message).toBe(
        `select: params[0] must be a text or null, not ${shown}: a parameter is a value's PostgreSQL text ` +
          "form ('5', not 5), cast in the SQL as needed ($1::int). Nothing was sent.",
      )
    }
  })

  it('refuses what is not a statement', () => {
    expect(problem(null)).toBe('the statement must be { text, params }, not null')
    expect(problem('select 1')).toBe('the statement must be { text, params }, not a string of 8 characters')
    expect(problem({ text: 7, params: [] })).toBe('text must be a string, not a number')
    expect(problem({ text: 'select 1', params: '1' })).toBe(
      'params must be an array of texts, not a string of 1 character',
    )
  })
})

describe('checkSelectedColumns', () => {
  it('names the columns the first row lacks; an empty result has nothing to check', () => {
    expect(() => checkSelectedColumns(price, [])).not.toThrow()
    expect(() => checkSelectedColumns(price, [{ c0: '1', c1: null }])).not.toThrow()
    const e = thrown(() => checkSelectedColumns(seat, [{ c1: '3', id: '1' }]))
    expect(e).toMatchObject({ code: 'INVALID_VALUE', table: 'seat' })
    expect(e.message).toBe(
      'loadRows(seat): the rows selected lack c0 (row), c2 (booked): select every column of the table as ' +
        'text, aliased c0, c1... in table order. Nothing was tracked.',
    )
  })
})

describe('decodeRow of a stored value that cannot be read', () => {
  it("names the row by its key: a value the column's mapping cannot read", () => {
    const e = thrown(() => decodeRow(price, { c0: '7', c1: '1.50' }))
    expect(e).toMatchObject({ code: 'INVALID_VALUE', table: 'price', column: 'amount', keys: [7] })
    expect(e.message).toMatch(/^price\.amount \(row id=7\): /)
    const composite = thrown(() => decodeRow(seat, { c0: 'A', c1: '3', c2: 'soon' }))
    expect(composite.message).toMatch(/^seat\.booked \(row row=a string of 1 character, n=3\): /)

    // Bug: keys held the key by column ({ row: 'A', n: 3 }), unlike every other error's keys.
    expect(composite.keys).toEqual([['A', 3]])
  })

  it('a row whose key cannot be read is a row read', () => {
    const e = thrown(() => decodeRow(price, { c0: 'seven', c1: '1' }))
    expect(e).toMatchObject({ code: 'INVALID_VALUE', table: 'price', column: 'id' })
    expect(e.message).toMatch(/^price\.id \(a row read\): /)
    expect(e.keys).toBeUndefined()
    const keyless = thrown(() => decodeRow(price, { c1: '1.5' }))
    expect(keyless.message).toMatch(/^price\.amount \(a row read\): /)
  })
})

it('a text holding a backslash is left to the server: with standard_conforming_strings off it may end a string', () => {
  const statement = { text: "select 'it\\'s $2', $1::text as b", params: ['x'] }
  expect(ownStatement(statement, 'select')).toBe(statement)
})
