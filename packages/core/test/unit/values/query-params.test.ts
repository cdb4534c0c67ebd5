import { describe, expect, it } from 'vitest'
import { queryParamTexts } from '../../../src/values/query-params.ts'

describe('queryParamTexts', () => {
  it('writes scalars as the server reads them', () => {
    expect(
      queryParamTexts(['ada', 3, -0.5, 12n, true, null, undefined, Number.NaN, Number.NEGATIVE_INFINITY]),
    ).toEqual(['ada', '3', '-0.5', '12', 'true', null, null, 'NaN', '-Infinity'])
    expect(queryParamTexts([new Uint8Array([1, 255]), { a: [1] }])).toEqual(['\\x01ff', '{"a":[1]}'])
  })

  it('writes Dates as timestamps, outside years 1 to 9999 as the server writes them, the limits as infinity', () => {
    expect(
      queryParamTexts([
        new Date('2026-12-01T10:00:00.123Z'),
        new Date('+010000-01-01T00:00:00.000Z'),
        new Date(8.64e15),
        new Date(-8.64e15),
      ]),
    ).toEqual(['2026-12-01T10:00:00.123Z', '10000-01-01 00:00:00.000+00', 'infinity', '-infinity'])
    expect(() => queryParamTexts([new Date(Number.NaN)])).toThrow(
      expect.objectContaining({ code: 'INVALID_VALUE' }),
    )
  })

  it('writes an array as an array literal, each element quoted, a nested array as a sub-array', () => {
    expect(queryParamTexts([['a', null, 'say "hi"', 'x\\y']])).toEqual(['{"a",NULL,"say \\"hi\\"","x\\\\y"}'])
    expect(
      queryParamTexts([
        [
          [1, null],
          [3, 4],
        ],
      ]),
    ).toEqual(['{{"1",NULL},{"3","4"}}'])
    expect(queryParamTexts([[[['deep']]], []])).toEqual(['{{{"deep"}}}', '{}'])
  })
})
