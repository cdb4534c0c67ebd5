import { describe, expect, it } from 'vitest'
import { inlineParams } from '../../../src/drivers/inline-params.ts'
import { PipeflushError } from '../../../src/errors.ts'

describe('inlineParams', () => {
  it('replaces $n outside quotes, the same way on every call with the same text', () => {
    const text = `select $1::text[] as "a$1", '$2' as b, $2::text as "c""$1", $10::text as d`
    const params = ['{"x"}', null, '3', '4', '5', '6', '7', '8', '9', "it's"]
    const expected = `select '{"x"}'::text[] as "a$1", '$2' as b, null::text as "c""$1", 'it''s'::text as d`
    expect(inlineParams(text, params)).toBe(expected)
    expect(inlineParams(text, params)).toBe(expected)
    expect(inlineParams(text, [...params.slice(0, 9), 'a\\b'])).toBe(expected.replace(`'it''s'`, `E'a\\\\b'`))
  })

  it('leaves a text without parameters as it is', () => {
    expect(inlineParams('select 1', [])).toBe('select 1')
    expect(inlineParams('', [])).toBe('')
  })

  it('fails with an internal error for a parameter the list lacks, however often asked', () => {
    for (let i = 0; i < 2; i++) {
      let e: unknown
      try {
        inlineParams('select $1, $3', ['a', 'b'])
      } catch (error) {
        e = error
      }
      expect(e).toBeInstanceOf(PipeflushError)
      expect((e as PipeflushError).code).toBe('INTERNAL_ERROR')
    }
  })
})
