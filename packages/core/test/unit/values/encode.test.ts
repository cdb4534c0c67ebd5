import { describe, expect, it } from 'vitest'
import { PipeflushError } from '../../../src/errors.ts'
import { encodeValue, sameValue } from '../../../src/values/index.ts'
import { jsonCodec, MAX_JSON_DEPTH } from '../../../src/values/json.ts'
import { normalizeKeyValue } from '../../../src/values/key.ts'
import { at, column } from './columns.ts'

function rejects(value: unknown, col = column('text'), pattern?: RegExp): PipeflushError {
  let error: unknown
  try {
    encodeValue(value, col, at)
  } catch (e) {
    error = e
  }
  expect(error).toBeInstanceOf(PipeflushError)
  const e = error as PipeflushError
  expect(e.code).toBe('INVALID_VALUE')
  expect(e.table).toBe('book')
  expect(e.column).toBe(col.name)
  expect(e.keys).toEqual([7]) // as every error's keys: a value, an array for a composite key
  expect(e.message.startsWith(`book.${col.name} (row id=7): `)).toBe(true)
  if (pattern) expect(e.message).toMatch(pattern)
  return e
}

describe('encodeValue: common rules', () => {
  it('encodes null as SQL NULL for every type, nullable or not', () => {
    expect(encodeValue(null, column('int4', { nullable: false }), at)).toBeNull()
    expect(encodeValue(null, column('jsonb'), at)).toBeNull()
    expect(encodeValue(null, column('text', { isArray: true }), at)).toBeNull()
  })

  it('rejects undefined with a message naming table, column and row', () => {
    const e = rejects(undefined, column('int4', { name: 'price' }))
    expect(e.message).toBe('book.price (row id=7): undefined is not a value (use null for SQL NULL)')
  })

  it('names the row by key value, composite key, or as a new row', () => {
    const col = column('int4', { name: 'n' })
    expect(() => encodeValue(1.5, col, { table: 'book', key: 7 })).toThrow('book.n (row key=7): ')
    expect(() => encodeValue(1.5, col, { table: 'book', key: [7, 'en'] })).toThrow(
      'book.n (row key=(7, a string of 2 characters)): ',
    )
    expect(() => encodeValue(1.5, col, { table: 'book', key: { id: 7n, lang: 'en' } })).toThrow(
      'book.n (row id=7, lang=a string of 2 characters): ',
    )
    expect(() => encodeValue(1.5, col, { table: 'book' })).toThrow('book.n (new row): ')
  })

  it('produces the message of the brief for NaN numeric', () => {
    const e = rejects(Number.NaN, column('numeric', { name: 'price' }))
    expect(e.message).toBe('book.price (row id=7): NaN is not a valid numeric')
  })
})

describe('encodeValue: integers', () => {
  it('encodes int2 and int4 numbers', () => {
    expect(encodeValue(-32768, column('int2'), at)).toBe('-32768')
    expect(encodeValue(32767, column('int2'), at)).toBe('32767')
    expect(encodeValue(2147483647, column('int4'), at)).toBe('2147483647')
    expect(encodeValue(-2147483648, column('int4'), at)).toBe('-2147483648')
    expect(encodeValue(-0, column('int4'), at)).toBe('0')
  })

  it('rejects non-integers, out of range values and other JS types for int2/int4', () => {
    rejects(1.5, column('int4'), /a number is not a valid int4 \(not an integer\)/)
    rejects(32768, column('int2'), /a number is out of range for int2/)
    rejects(2147483648, column('int4'), /out of range for int4/)
    rejects(-2147483649, column('int4'), /out of range for int4/)
    rejects(Number.NaN, column('int4'), /NaN is not a valid int4/)
    rejects(Number.POSITIVE_INFINITY, column('int2'), /Infinity is not a valid int2/)
    rejects('5', column('int4'), /expected a number for int4, got a string of 1 character/)
    rejects(5n, column('int4'), /expected a number for int4, got a bigint/)
    rejects({}, column('int4'), /got an object/)
    rejects(true, column('int2'), /got true/)
  })

  it('encodes int8 from safe numbers, bigints and decimal strings', () => {
    const c = column('int8')
    expect(encodeValue(5, c, at)).toBe('5')
    expect(encodeValue(5n, c, at)).toBe('5')
    expect(encodeValue('5', c, at)).toBe('5')
    expect(encodeValue('-007', c, at)).toBe('-7')
    expect(encodeValue(Number.MAX_SAFE_INTEGER, c, at)).toBe('9007199254740991')
    expect(encodeValue(9223372036854775807n, c, at)).toBe('9223372036854775807')
    expect(encodeValue('-9223372036854775808', c, at)).toBe('-9223372036854775808')
  })

  it('rejects unsafe numbers, out of range and malformed int8 values', () => {
    const c = column('int8')
    rejects(2 ** 53, c, /not a safe integer/)
    rejects(1.5, c, /not a valid int8/)
    rejects(Number.NaN, c, /NaN is not a valid int8/)
    rejects(Number.NEGATIVE_INFINITY, c, /-Infinity is not a valid int8/)
    rejects(9223372036854775808n, c, /out of range for int8/)
    rejects('-9223372036854775809', c, /out of range for int8/)
    rejects('1.0', c, /not a valid int8/)
    rejects('1e3', c, /not a valid int8/)
    rejects(' 1', c, /not a valid int8/)
    rejects('', c, /not a valid int8/)
    rejects('+1', c, /not a valid int8/)
    rejects('0x10', c, /not a valid int8/)
    rejects(new Date(), c, /expected a bigint, a number or a decimal string for int8/)
  })
})

describe('encodeValue: numeric(p,s)', () => {
  const typed = (precision: number, scale: number, isArray = false) =>
    column('numeric', { numericTypmod: { precision, scale }, isArray })
  it('sends what fits once rounded to the scale, as given (the server rounds it)', () => {
    const c = typed(5, 2)
    expect(encodeValue('1.235', c, at)).toBe('1.235')
    expect(encodeValue('999.994', c, at)).toBe('999.994')
    expect(encodeValue(-999.99, c, at)).toBe('-999.99')
    expect(encodeValue('0.001', c, at)).toBe('0.001')
    expect(encodeValue('NaN', c, at)).toBe('NaN')
    expect(encodeValue(12n, c, at)).toBe('12')
    expect(encodeValue('9.99e2', c, at)).toBe('999')
    expect(encodeValue(['1.5', null], typed(5, 2, true), at)).toBe('{"1.5",NULL}')
    // A negative scale rounds to tens, hundreds...; a scale above the precision holds only small values.
    expect(encodeValue('12349', typed(3, -2), at)).toBe('12349')
    expect(encodeValue('0.00012', typed(3, 5), at)).toBe('0.00012')
  })

  it('refuses, before anything is sent, what the server would find too large once rounded, and the infinities', () => {
    const c = typed(5, 2)
    rejects('1000', c, /does not fit a numeric\(5,2\) column: at most 3 digits before the decimal point/)
    rejects('999.995', c, /does not fit a numeric\(5,2\) column/)
    rejects(-1234.5, c, /does not fit/)
    rejects('1e3', c, /does not fit/)
    rejects('Infinity', c, /cannot be stored in a numeric\(5,2\) column \(no infinity\)/)
    rejects(['1', '1000'], typed(5, 2, true), /element 1: .*does not fit a numeric\(5,2\)/)
    rejects('99950', typed(3, -2), /does not fit a numeric\(3,-2\) column/)
    rejects('0.01', typed(3, 5), /its absolute value must be below 10\^-2/)
    rejects('2', typed(1, 1), /at most 0 digits|below 10\^0/)
  })
})

describe('encodeValue: numeric', () => {
  const c = column('numeric')
  it('encodes numbers, bigints and decimal strings as plain decimals, keeping the scale', () => {
    expect(encodeValue(1.5, c, at)).toBe('1.5')
    expect(encodeValue(0.1, c, at)).toBe('0.1')
    expect(encodeValue(-0, c, at)).toBe('0')
    expect(encodeValue(1e21, c, at)).toBe('1000000000000000000000')
    expect(encodeValue(1e-7, c, at)).toBe('0.0000001')
    expect(encodeValue(-1.5e-7, c, at)).toBe('-0.00000015')
    expect(encodeValue(12345678901234567890n, c, at)).toBe('12345678901234567890')
    expect(encodeValue('1.50', c, at)).toBe('1.50')
    expect(encodeValue('+5', c, at)).toBe('5')
    expect(encodeValue('-0.00', c, at)).toBe('0.00')
    expect(encodeValue('007.10', c, at)).toBe('7.10')
    expect(encodeValue('1.50e1', c, at)).toBe('15.0')
    expect(encodeValue('1.5E+3', c, at)).toBe('1500')
    expect(encodeValue('15e-3', c, at)).toBe('0.015')
    expect(encodeValue('0.0000e1000', c, at)).toBe('0')
    // As PostgreSQL reads them: white space around, no digit on one side of the point.
    expect(encodeValue(' 12.5 ', c, at)).toBe('12.5')
    expect(encodeValue('\t-1\n', c, at)).toBe('-1')
    expect(encodeValue('.5', c, at)).toBe('0.5')
    expect(encodeValue('5.', c, at)).toBe('5')
    expect(encodeValue('-.5e1', c, at)).toBe('-5')
    expect(encodeValue('123456789012345678901234567890.123456789', c, at)).toBe(
      '123456789012345678901234567890.123456789',
    )
  })

  it('writes NaN and the infinities given as the server prints them (as read), not as numbers', () => {
    expect(['NaN', 'Infinity', '-Infinity'].map((v) => encodeValue(v, c, at))).toEqual([
      'NaN',
      'Infinity',
      '-Infinity',
    ])
  })

  it('rejects the numbers NaN and Infinity, other spellings, malformed strings and values beyond the numeric limits', () => {
    rejects(Number.POSITIVE_INFINITY, c, /Infinity is not a valid numeric/)
    rejects(Number.NaN, c, /NaN is not a valid numeric/)
    rejects('nan', c, /a string of 3 characters is not a valid numeric/)
    rejects('+Infinity', c, /not a valid numeric/)
    rejects('inf', c, /not a valid numeric/)
    rejects('1,5', c, /not a valid numeric/)
    rejects('', c, /not a valid numeric/)
    rejects('.', c, /not a valid numeric/)
    rejects(' ', c, /not a valid numeric/)
    rejects('1 2', c, /not a valid numeric/)
    rejects('\u00a012', c, /not a valid numeric/) // not a space PostgreSQL skips
    rejects('1e', c, /not a valid numeric/)
    rejects(true, c, /expected a number, a bigint or a decimal string for numeric/)
    rejects(`0.${'1'.repeat(16384)}`, c, /more than 16383 digits after the decimal point/)
    rejects('1e-16384', c, /more than 16383 digits after/)
    rejects('1e131072', c, /more than 131072 digits before/)
    expect(encodeValue('1e131071', c, at)).toHaveLength(131072)
  })
})

describe('encodeValue: floats', () => {
  it('encodes float8 in shortest round-trip form, keeping -0', () => {
    const c = column('float8')
    expect(encodeValue(0.1, c, at)).toBe('0.1')
    expect(encodeValue(-0, c, at)).toBe('-0')
    expect(encodeValue(1e21, c, at)).toBe('1e+21')
    expect(encodeValue(5e-324, c, at)).toBe('5e-324')
    expect(encodeValue(Number.MAX_VALUE, c, at)).toBe('1.7976931348623157e+308')
    expect(Number(encodeValue(Math.PI, c, at))).toBe(Math.PI)
  })

  it('rounds float4 to single precision before writing', () => {
    const c = column('float4')
    expect(encodeValue(1.5, c, at)).toBe('1.5')
    expect(encodeValue(0.1, c, at)).toBe(String(Math.fround(0.1)))
    expect(encodeValue(-0, c, at)).toBe('-0')
    expect(encodeValue(16777217, c, at)).toBe('16777216')
    expect(encodeValue(3.4028234663852886e38, c, at)).toBe('3.4028234663852886e+38')
    expect(encodeValue(1e-45, c, at)).toBe(String(Math.fround(1e-45)))
  })

  it('rejects NaN, infinities, other types and float4 overflow/underflow', () => {
    for (const type of ['float4', 'float8'] as const) {
      rejects(Number.NaN, column(type), new RegExp(`NaN is not a valid ${type}`))
      rejects(Number.POSITIVE_INFINITY, column(type), /Infinity is not a valid/)
      rejects(Number.NEGATIVE_INFINITY, column(type), /-Infinity is not a valid/)
      rejects('1.5', column(type), /expected a number/)
      rejects(1n, column(type), /expected a number/)
    }
    rejects(3.5e38, column('float4'), /out of range for float4/)
    rejects(1e-50, column('float4'), /out of range for float4/)
  })
})

describe('encodeValue: strings', () => {
  it('encodes text as is, unicode included', () => {
    expect(encodeValue('', column('text'), at)).toBe('')
    expect(encodeValue('héllo 😀 \n\t\\ "\' {}', column('text'), at)).toBe('héllo 😀 \n\t\\ "\' {}')
  })

  it('rejects non-strings, NUL characters and lone surrogates in text, varchar, char and enum', () => {
    for (const type of ['text', 'varchar', 'bpchar', 'enum'] as const) {
      const c = column(type)
      rejects(5, c, /expected a string/)
      rejects('a\u0000b', c, /contains a NUL character \(\\u0000\) at index 1/)
      rejects('a\uD800b', c, /contains a lone UTF-16 surrogate at index 1/)
      rejects('ab\uDC00', c, /lone UTF-16 surrogate at index 2/)
      rejects('\uD83D', c, /lone UTF-16 surrogate at index 0/)
    }
    rejects(['a'], column('text'), /expected a string for text, got an array of 1/)
    rejects(new String('a'), column('text'), /got a String/)
  })

  it('checks varchar and char lengths in code points', () => {
    const v = column('varchar', { maxLength: 3 })
    expect(encodeValue('abc', v, at)).toBe('abc')
    expect(encodeValue('😀😀😀', v, at)).toBe('😀😀😀')
    rejects('abcd', v, /a string of 4 characters is 4 characters long, more than varchar\(3\) allows/)
    rejects('abc\t', v, /4 characters long/)
    rejects('ab d', v, /4 characters long/)
    const b = column('bpchar', { maxLength: 2 })
    expect(encodeValue('é', b, at)).toBe('é')
    rejects('abc', b, /more than char\(2\) allows/)
    expect(encodeValue('x'.repeat(10_000), column('varchar'), at)).toHaveLength(10_000)
  })

  it('drops spaces past varchar(n) and char(n), as the assignment does, and compares and keys as stored', () => {
    const v = column('varchar', { maxLength: 3 })
    expect(encodeValue('abc  ', v, at)).toBe('abc')
    expect(encodeValue('ab    ', v, at)).toBe('ab ')
    expect(encodeValue('😀😀😀 ', v, at)).toBe('😀😀😀')
    rejects('abc \u00a0', v, /5 characters long/) // only spaces are dropped
    rejects('abcd ', v, /5 characters long/)
    expect(sameValue('abc  ', 'abc', v)).toBe(true)
    expect(sameValue('ab ', 'ab', v)).toBe(false) // within the length, a space is kept: varchar compares it
    expect(sameValue('abcd', 'abc', v)).toBe(false)
    expect(normalizeKeyValue('abc  ', v, at)).toBe(normalizeKeyValue('abc', v, at))
    expect(normalizeKeyValue('ab ', v, at)).not.toBe(normalizeKeyValue('ab', v, at))
    const b = column('bpchar', { maxLength: 2 })
    expect(encodeValue('ab ', b, at)).toBe('ab')
    expect(encodeValue('a   ', b, at)).toBe('a ')
    rejects('ab c', b, /more than char\(2\) allows/)
    expect(sameValue('ab   ', 'ab', b)).toBe(true)
    expect(normalizeKeyValue('ab ', b, at)).toBe(normalizeKeyValue('ab', b, at))
  })

  it('accepts enum labels only', () => {
    const c = column('enum')
    expect(encodeValue('happy', c, at)).toBe('happy')
    rejects('HAPPY', c, /a string of 5 characters is not a label of "public"."mood" \(sad, ok, happy\)/)
    rejects('', c, /is not a label/)
  })

  it('validates and lowercases uuids', () => {
    const c = column('uuid')
    expect(encodeValue('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', c, at)).toBe(
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    )
    rejects('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1g', c, /is not a valid uuid/)
    rejects(123, c, /expected a string for uuid/)
  })

  it('takes the uuid forms the server reads, written, compared and keyed in the canonical form reads give', () => {
    const c = column('uuid')
    const canonical = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'
    for (const form of [
      '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}',
      'a0eebc999c0b4ef8bb6d6bb9bd380a11',
      '{A0EEBC999C0B4EF8BB6D6BB9BD380A11}',
      'a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11',
      'a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11',
    ]) {
      expect(encodeValue(form, c, at)).toBe(canonical)
      expect(sameValue(form, canonical, c)).toBe(true)
      expect(normalizeKeyValue(form, c, at)).toBe(normalizeKeyValue(canonical, c, at))
    }
    for (const bad of [
      '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', // one brace
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}',
      'a0eeb-c99-9c0b-4ef8-bb6d-6bb9bd380a11', // a hyphen inside a group of four
      'a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11', // two hyphens
      '-a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', // leading or trailing hyphen
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-',
      ' a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1', // 31 digits
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111', // 33
    ])
      rejects(bad, c, /is not a valid uuid/)
    expect(sameValue('{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}', 'not a uuid', c)).toBe(false)
  })
})

describe('encodeValue: bool and bytea', () => {
  it('encodes booleans as t/f', () => {
    expect(encodeValue(true, column('bool'), at)).toBe('t')
    expect(encodeValue(false, column('bool'), at)).toBe('f')
    rejects('true', column('bool'), /expected a boolean for bool/)
    rejects(1, column('bool'), /expected a boolean/)
  })

  it('encodes Buffers and Uint8Arrays (views included) as hex', () => {
    const c = column('bytea')
    expect(encodeValue(Buffer.from([0, 1, 255]), c, at)).toBe('\\x0001ff')
    expect(encodeValue(new Uint8Array(0), c, at)).toBe('\\x')
    const view = new Uint8Array([9, 8, 7, 6]).subarray(1, 3)
    expect(encodeValue(view, c, at)).toBe('\\x0807')
    rejects('\\x00', c, /expected a Buffer or a Uint8Array for bytea/)
    rejects([1, 2], c, /expected a Buffer/)
    rejects(new Uint16Array(2), c, /got a Uint16Array/)
    rejects(new ArrayBuffer(2), c, /got a ArrayBuffer/)
  })
})

describe('encodeValue: json and jsonb', () => {
  it('encodes JSON values with JSON.stringify', () => {
    for (const type of ['json', 'jsonb'] as const) {
      const c = column(type)
      expect(encodeValue({ a: [1, 'x', null, true], b: { c: -1.5e-7 } }, c, at)).toBe(
        '{"a":[1,"x",null,true],"b":{"c":-1.5e-7}}',
      )
      expect(encodeValue('str', c, at)).toBe('"str"')
      expect(encodeValue(0, c, at)).toBe('0')
      expect(encodeValue(false, c, at)).toBe('false')
      expect(encodeValue([], c, at)).toBe('[]')
      expect(encodeValue(Object.create(null), c, at)).toBe('{}')
      expect(encodeValue({ 'key "q"': '😀\\' }, c, at)).toBe('{"key \\"q\\"":"😀\\\\"}')
    }
  })

  it("leaves an object's undefined property out, as JSON.stringify, Drizzle and the drivers do", () => {
    const c = column('jsonb')
    expect(encodeValue({ theme: 'dark', locale: undefined }, c, at)).toBe('{"theme":"dark"}')
    expect(encodeValue({ a: [{ b: undefined, c: 1 }] }, c, at)).toBe('{"a":[{"c":1}]}')
    // Still checked: what the left-out property's siblings hold.
    rejects({ a: undefined, b: () => 1 }, c, /a function at \$\.b is not a JSON value/)
    expect(jsonCodec.same({ a: 1, b: undefined }, { a: 1 }, c)).toBe(true)
    expect(jsonCodec.same({ a: 1 }, { a: 1, b: undefined }, c)).toBe(true)
    expect(jsonCodec.same({ a: 1, b: undefined }, { a: 1, c: 2 }, c)).toBe(false)
    expect(jsonCodec.same({ a: undefined }, { b: undefined }, c)).toBe(true)
    const keyColumn = column('jsonb')
    expect(jsonCodec.key?.({ b: 1, a: undefined }, keyColumn)).toBe(jsonCodec.key?.({ b: 1 }, keyColumn))
  })

  it('rejects values JSON.stringify does not write exactly', () => {
    const c = column('jsonb')
    rejects([1, undefined], c, /undefined at \$\[1\] is not a JSON value/)
    rejects({ f: () => 1 }, c, /a function at \$\.f is not a JSON value/)
    rejects({ s: Symbol('x') }, c, /a symbol at \$\.s/)
    rejects({ b: 1n }, c, /a bigint at \$\.b is not a JSON value/)
    rejects({ n: Number.NaN }, c, /NaN at \$\.n is not a JSON number/)
    rejects([Number.POSITIVE_INFINITY], c, /Infinity at \$\[0\] is not a JSON number/)
    rejects({ d: new Date(0) }, c, /a Date at \$\.d is not JSON/)
    rejects(new Map(), c, /a Map at \$ is not JSON/)
    rejects({ s: new Set([1]) }, c, /a Set at \$\.s/)
    rejects(
      new (class Point {
        x = 1
      })(),
      c,
      /a Point at \$ is not JSON/,
    )
    rejects({ [Symbol('k')]: 1 }, c, /symbol keys/)
    // biome-ignore lint/suspicious/noSparseArray: a hole is what is tested
    rejects([1, , 3], c, /hole at index 1/)
    rejects({ t: 'a\u0000' }, c, /the JSON string at \$\.t contains a NUL character/)
    rejects({ t: '\uDC00' }, c, /lone UTF-16 surrogate/)
    rejects({ 'k\u0000': 1 }, c, /the key .* contains a NUL/)
    const cyclic: Record<string, unknown> = {}
    cyclic['self'] = cyclic
    rejects(cyclic, c, /the value at \$\.self is circular/)
    rejects(undefined, c, /undefined is not a value/)
  })

  it('accepts JSON nested deeper than the quick check walks, and finds a cycle or a bad value down there', () => {
    let deep: unknown = 'leaf'
    for (let i = 0; i < 200; i++) deep = i % 2 === 0 ? { d: deep } : [deep]
    const c = column('jsonb')
    expect(encodeValue(deep, c, at)).toBe(JSON.stringify(deep))
    const loop: Record<string, unknown> = {}
    let tip: unknown = loop
    for (let i = 0; i < 100; i++) tip = { n: tip }
    loop['back'] = tip
    rejects(loop, c, /is circular/)
    let bad: unknown = { t: 'a\u0000' }
    for (let i = 0; i < 100; i++) bad = [bad]
    rejects(bad, c, /the JSON string at \$(\[0\]){100}\.t contains a NUL character/)
  })

  it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} (JSON.stringify and copies recurse), whatever the depth, as INVALID_VALUE`, () => {
    const nest = (n: number, leaf: unknown = 1) => {
      let v: unknown = leaf
      for (let i = 0; i < n; i++) v = i % 2 === 0 ? [v] : { k: v }
      return v
    }
    for (const type of ['json', 'jsonb'] as const) {
      const c = column(type)
      const deepest = nest(MAX_JSON_DEPTH)
      expect(encodeValue(deepest, c, at)).toBe(JSON.stringify(deepest))
      for (const depth of [MAX_JSON_DEPTH + 1, 4000, 6000, 50_000])
        rejects(nest(depth), c, new RegExp(`nests arrays and objects more than ${MAX_JSON_DEPTH} deep`))
      rejects([nest(10_000)], column(type, { isArray: true }), /more than 1000 deep/)
    }
    // jsonb keys too
    expect(() => normalizeKeyValue(nest(50_000), column('jsonb'), at)).toThrow(/more than 1000 deep/)
  })

  it('accepts shared (non-circular) references', () => {
    const shared = { x: 1 }
    expect(encodeValue({ a: shared, b: shared }, column('json'), at)).toBe('{"a":{"x":1},"b":{"x":1}}')
  })
})

describe('encodeValue: arrays', () => {
  it('encodes one-dimensional arrays with every element quoted and NULL unquoted', () => {
    expect(encodeValue([], column('int4', { isArray: true }), at)).toBe('{}')
    expect(encodeValue([1, null, -3], column('int4', { isArray: true }), at)).toBe('{"1",NULL,"-3"}')
    expect(encodeValue([null], column('text', { isArray: true }), at)).toBe('{NULL}')
    expect(
      encodeValue(['', 'NULL', 'a"b', 'c\\d', 'x,y', '{z}', ' s '], column('text', { isArray: true }), at),
    ).toBe('{"","NULL","a\\"b","c\\\\d","x,y","{z}"," s "}')
    expect(encodeValue([Buffer.from([1])], column('bytea', { isArray: true }), at)).toBe('{"\\\\x01"}')
    expect(encodeValue([1n, '2', 3], column('int8', { isArray: true }), at)).toBe('{"1","2","3"}')
  })

  it('allows arrays as elements of json arrays (they are JSON values)', () => {
    expect(encodeValue([[1, 2], { a: 'b' }, null], column('jsonb', { isArray: true }), at)).toBe(
      '{"[1,2]","{\\"a\\":\\"b\\"}",NULL}',
    )
  })

  it('rejects non-arrays, nested arrays, undefined elements, holes and invalid elements', () => {
    const c = column('int4', { isArray: true })
    rejects(1, c, /expected an array for int4\[\], got a number/)
    rejects(new Int32Array(2), c, /expected an array/)
    rejects([[1]], c, /element 0 is an array: only one-dimensional arrays are supported/)
    rejects([1, undefined], c, /element 1 is undefined \(use null\)/)
    rejects(new Array(2), c, /hole at index 0/)
    rejects([1, 2.5], c, /element 1: a number is not a valid int4/)
    rejects(
      ['ok', 'a\u0000'],
      column('text', { isArray: true }),
      /element 1: a string of 2 characters contains a NUL/,
    )
    rejects(
      ['nope'],
      column('enum', { isArray: true }),
      /element 0: a string of 4 characters is not a label of "public"."mood" /,
    )
  })
})
