import { describe, expect, it } from 'vitest'
import { inlineParams, parameterNumbers } from '../../../src/drivers/inline-params.ts'
import { quoteStringLiteral } from '../../../src/values/sql-literal.ts'
import { thrown } from '../track/fixtures.ts'

// Where a text's parameters are, as the server's lexer finds them: what `inlineParams` replaces and
// what a select of the application is checked against before it is sent.
describe('parameterNumbers', () => {
  it('finds $n outside constants, quoted identifiers, comments and identifiers', () => {
    expect(parameterNumbers(`select $2::int, '$3', "$4", $1::text -- $5`)).toEqual([2, 1])
    expect(parameterNumbers(`select E'it\\'s $1', e'\\\\', $2::text`)).toEqual([2])
    // Not an escape string: a name ending in e, then a constant.
    expect(parameterNumbers(`select some'$1', $2::text`)).toEqual([2])
    expect(parameterNumbers('select $$ $1 $$, $tag$ $2 $x$ $tag$, $3::text')).toEqual([3])
    expect(parameterNumbers('select x$1, a$$b, $1::text')).toEqual([1])
    expect(parameterNumbers('select /* $1 /* $2 */ $3 */ $4::text /* $5')).toEqual([4])
    expect(parameterNumbers('select $1::text --')).toEqual([1])
    expect(parameterNumbers("select '$1")).toEqual([])
  })

  it('leaves what it skips as it is when inlining', () => {
    const text = `select $$ $1 $$ as a, /* $1 */ $1::text as b -- $2\n, E'\\' $1' as c`
    expect(inlineParams(text, ["it's"])).toBe(
      `select $$ $1 $$ as a, /* $1 */ 'it''s'::text as b -- $2\n, E'\\' $1' as c`,
    )
  })
})

describe('quoteStringLiteral', () => {
  it('refuses what is not a string (INVALID_VALUE), not quoting a number as its text', () => {
    const e = thrown(() => quoteStringLiteral(5 as unknown as string))
    expect(e).toMatchObject({
      code: 'INVALID_VALUE',
      message: 'a SQL string literal must hold a text, not a number',
    })
  })
})
