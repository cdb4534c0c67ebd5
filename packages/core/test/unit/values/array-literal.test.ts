import { describe, expect, it } from 'vitest'
import { arrayLiteral, parseArrayLiteral } from '../../../src/values/index.ts'

const tricky = [
  '',
  'NULL',
  'null',
  'a"b',
  'c\\d',
  '\\',
  '"',
  '\\"',
  'x,y',
  '{',
  '}',
  '{z}',
  ' lead',
  'trail ',
  ' ',
  '\t\n\r',
  'héllo',
  '😀',
  '日本語',
  "it's",
  '[0:1]={1}',
]

describe('arrayLiteral', () => {
  it('quotes every element, escapes quotes and backslashes, writes NULL unquoted', () => {
    expect(arrayLiteral([])).toBe('{}')
    expect(arrayLiteral([null])).toBe('{NULL}')
    expect(arrayLiteral([''])).toBe('{""}')
    expect(arrayLiteral(['NULL', null])).toBe('{"NULL",NULL}')
    expect(arrayLiteral(['a"b', 'c\\d', 'x,y', '{z}'])).toBe('{"a\\"b","c\\\\d","x,y","{z}"}')
  })
})

describe('parseArrayLiteral', () => {
  it('reads the server output forms', () => {
    expect(parseArrayLiteral('{}')).toEqual([])
    expect(parseArrayLiteral('{a,b}')).toEqual(['a', 'b'])
    expect(parseArrayLiteral('{NULL,null,"NULL",""}')).toEqual([null, null, 'NULL', ''])
    expect(parseArrayLiteral('{"a b","x\\"y","x\\\\y","{","}",","}')).toEqual([
      'a b',
      'x"y',
      'x\\y',
      '{',
      '}',
      ',',
    ])
    expect(parseArrayLiteral('{"2024-01-01 00:00:00+00"}')).toEqual(['2024-01-01 00:00:00+00'])
    expect(parseArrayLiteral('{"\\\\x00ff"}')).toEqual(['\\x00ff'])
    expect(parseArrayLiteral('[0:1]={1,2}')).toEqual(['1', '2'])
    expect(parseArrayLiteral('[-3:-3]={x}')).toEqual(['x'])
    expect(parseArrayLiteral('{ a , "b" }')).toEqual(['a', 'b'])
    expect(parseArrayLiteral('{\\NULL,a\\,b}')).toEqual(['NULL', 'a,b'])
  })

  it('round-trips every tricky element, alone, first, last and between NULLs', () => {
    for (const s of tricky) {
      for (const elements of [[s], [s, null], [null, s], [null, s, null, s], [s, s]]) {
        expect(parseArrayLiteral(arrayLiteral(elements))).toEqual(elements)
      }
    }
    expect(parseArrayLiteral(arrayLiteral(tricky))).toEqual(tricky)
    expect(parseArrayLiteral(arrayLiteral([null, null]))).toEqual([null, null])
  })

  it('describes malformed and multi-dimensional literals', () => {
    expect(parseArrayLiteral('{{1},{2}}')).toBe('multi-dimensional arrays are not supported')
    expect(parseArrayLiteral('[1:2][1:1]={{1},{2}}')).toBe('multi-dimensional arrays are not supported')
    expect(parseArrayLiteral('')).toBe('an array literal starts with {')
    expect(parseArrayLiteral('{')).toBe('unterminated array literal')
    expect(parseArrayLiteral('{"a')).toBe('unterminated quoted element')
    expect(parseArrayLiteral('{"a\\')).toBe('unterminated quoted element')
    expect(parseArrayLiteral('{a,}')).toBe('empty unquoted element')
    expect(parseArrayLiteral('{a}x')).toBe('unexpected text after }')
    expect(parseArrayLiteral('{}x')).toBe('unexpected text after }')
    expect(parseArrayLiteral('{"a"b}')).toBe('expected , or } after an element')
    expect(parseArrayLiteral('{a"b"}')).toBe('unexpected " in an unquoted element')
  })
})
