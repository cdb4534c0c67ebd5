import { describe, expect, it } from 'vitest'
import { decodeValue } from '../../../src/values/index.ts'
import { column } from './columns.ts'

describe('decodeValue: scalars', () => {
  it('returns null for SQL NULL', () => {
    expect(decodeValue(null, column('int4'))).toBeNull()
    expect(decodeValue(null, column('text', { isArray: true }))).toBeNull()
  })

  it('decodes integers: int2/int4 as numbers, int8 as strings', () => {
    expect(decodeValue('-32768', column('int2'))).toBe(-32768)
    expect(decodeValue('2147483647', column('int4'))).toBe(2147483647)
    expect(decodeValue('-9223372036854775808', column('int8'))).toBe('-9223372036854775808')
    expect(() => decodeValue('1.5', column('int4'))).toThrow(/cannot decode a string of 3 characters as int4/)
    expect(() => decodeValue('x', column('int8'))).toThrow(/cannot decode a string of 1 character as int8/)
  })

  it('refuses an int2/int4 text beyond the type: a column made int8 since the schema was read, never a rounded number', () => {
    expect(decodeValue('-2147483648', column('int4'))).toBe(-2147483648)
    for (const text of ['2147483648', '9007199254740993', '-2147483649']) {
      expect(() => decodeValue(text, column('int4'))).toThrow(/as int4: out of its range .*refreshSchema/)
    }
    expect(() => decodeValue('32768', column('int2'))).toThrow(/as int2: out of its range/)
  })

  it('decodes numeric as the server string, specials included', () => {
    for (const text of ['0', '1.50', '-0.000001', '1000000000000000000000', 'NaN', 'Infinity', '-Infinity']) {
      expect(decodeValue(text, column('numeric'))).toBe(text)
    }
    expect(() => decodeValue('1e5', column('numeric'))).toThrow(/cannot decode/)
  })

  it('decodes floats, NaN, infinities and -0 included', () => {
    const c = column('float8')
    expect(decodeValue('0.1', c)).toBe(0.1)
    expect(decodeValue('1e+21', c)).toBe(1e21)
    expect(decodeValue('5e-324', c)).toBe(5e-324)
    expect(decodeValue('1.7976931348623157e+308', c)).toBe(Number.MAX_VALUE)
    expect(Object.is(decodeValue('-0', c), -0)).toBe(true)
    expect(decodeValue('NaN', c)).toBeNaN()
    expect(decodeValue('Infinity', c)).toBe(Number.POSITIVE_INFINITY)
    expect(decodeValue('-Infinity', column('float4'))).toBe(Number.NEGATIVE_INFINITY)
    expect(decodeValue('3.4028235e+38', column('float4'))).toBe(3.4028235e38)
    expect(() => decodeValue('', c)).toThrow(/cannot decode an empty string as float8/)
    expect(() => decodeValue('0x10', c)).toThrow(/cannot decode/)
  })

  it('decodes strings as they are, except char padding', () => {
    expect(decodeValue('', column('text'))).toBe('')
    expect(decodeValue('ab ', column('text'))).toBe('ab ')
    expect(decodeValue('ab ', column('bpchar', { maxLength: 3 }))).toBe('ab')
    expect(decodeValue(' a  ', column('bpchar'))).toBe(' a')
    expect(decodeValue('{"ab  ",NULL,"    "}', column('bpchar', { isArray: true }))).toEqual(['ab', null, ''])
    expect(decodeValue('héllo 😀', column('varchar'))).toBe('héllo 😀')
    expect(decodeValue('happy', column('enum'))).toBe('happy')
  })

  it('decodes bool from both t/f and true/false', () => {
    const c = column('bool')
    expect(decodeValue('t', c)).toBe(true)
    expect(decodeValue('true', c)).toBe(true)
    expect(decodeValue('f', c)).toBe(false)
    expect(decodeValue('false', c)).toBe(false)
    expect(() => decodeValue('yes', c)).toThrow(/cannot decode a string of 3 characters as bool/)
  })

  it('decodes uuids in lowercase', () => {
    expect(decodeValue('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', column('uuid'))).toBe(
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    )
    expect(() => decodeValue('nope', column('uuid'))).toThrow(/cannot decode/)
  })

  it('decodes json and jsonb with JSON.parse', () => {
    expect(decodeValue('{"a": [1, "x", null], "b": 1.0}', column('jsonb'))).toEqual({
      a: [1, 'x', null],
      b: 1,
    })
    expect(decodeValue('"s"', column('json'))).toBe('s')
    expect(decodeValue('null', column('json'))).toBeNull()
    expect(() => decodeValue('{', column('json'))).toThrow(/cannot decode a string of 1 character as JSON/)
  })

  it('decodes bytea in hex and in escape format', () => {
    const c = column('bytea')
    expect(decodeValue('\\x', c)).toEqual(Buffer.alloc(0))
    expect(decodeValue('\\x00ff10', c)).toEqual(Buffer.from([0, 255, 16]))
    expect(decodeValue('\\x00FF', c)).toEqual(Buffer.from([0, 255]))
    expect(decodeValue("\\000\\377'A\\\\", c)).toEqual(Buffer.from([0, 255, 39, 65, 92]))
    expect(decodeValue('', c)).toEqual(Buffer.alloc(0))
    expect(Buffer.isBuffer(decodeValue('\\x01', c))).toBe(true)
    expect(() => decodeValue('\\x0', c)).toThrow(/cannot decode/)
    expect(() => decodeValue('\\xzz', c)).toThrow(/cannot decode/)
    expect(() => decodeValue('\\9', c)).toThrow(/cannot decode/)
  })
})

describe('decodeValue: arrays', () => {
  it('decodes each element with the scalar rules', () => {
    expect(decodeValue('{}', column('int4', { isArray: true }))).toEqual([])
    expect(decodeValue('{1,NULL,-3}', column('int4', { isArray: true }))).toEqual([1, null, -3])
    expect(decodeValue('{t,f,NULL}', column('bool', { isArray: true }))).toEqual([true, false, null])
    expect(decodeValue('{"\\\\x00ff",NULL}', column('bytea', { isArray: true }))).toEqual([
      Buffer.from([0, 255]),
      null,
    ])
    expect(decodeValue('{"2024-01-02 03:04:05+00"}', column('timestamptz', { isArray: true }))).toEqual([
      new Date('2024-01-02T03:04:05Z'),
    ])
    expect(decodeValue('{NaN,-0,Infinity}', column('float8', { isArray: true }))).toEqual([
      Number.NaN,
      -0,
      Number.POSITIVE_INFINITY,
    ])
    expect(decodeValue('{"[1, 2]","{\\"a\\": 1}",NULL}', column('jsonb', { isArray: true }))).toEqual([
      [1, 2],
      { a: 1 },
      null,
    ])
    expect(decodeValue('[0:1]={1,2}', column('int8', { isArray: true }))).toEqual(['1', '2'])
  })

  it('rejects multi-dimensional and malformed arrays, naming the row when known', () => {
    const c = column('int4', { isArray: true, name: 'tags' })
    expect(() => decodeValue('{{1,2},{3,4}}', c, { table: 'book', key: { id: 3 } })).toThrow(
      'book.tags (row id=3): cannot decode a string of 13 characters as an array: multi-dimensional arrays are not supported',
    )
    expect(() => decodeValue('[1:2][1:1]={{1},{2}}', c)).toThrow(/multi-dimensional/)
    expect(() => decodeValue('1,2', c)).toThrow(
      /column tags: cannot decode a string of 3 characters as an array/,
    )
    expect(() => decodeValue('{1,x}', c)).toThrow(/cannot decode a string of 1 character as int4/)
  })
})
