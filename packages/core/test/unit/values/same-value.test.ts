import { describe, expect, it } from 'vitest'
import type { ValueMapping } from '../../../src/model/model.ts'
import { sameValue } from '../../../src/values/index.ts'
import { column } from './columns.ts'

describe('sameValue', () => {
  it('treats null as equal only to null, and undefined as equal to nothing', () => {
    expect(sameValue(null, null, column('int4'))).toBe(true)
    expect(sameValue(null, 0, column('int4'))).toBe(false)
    expect(sameValue('', null, column('text'))).toBe(false)
    expect(sameValue(undefined, undefined, column('int4'))).toBe(false)
    expect(sameValue(undefined, null, column('int4'))).toBe(false)
  })

  it('compares int8 and numeric by value whatever the JS form', () => {
    const i8 = column('int8')
    expect(sameValue(1, '1', i8)).toBe(true)
    expect(sameValue(1n, '1', i8)).toBe(true)
    expect(sameValue('007', 7, i8)).toBe(true)
    expect(sameValue('9223372036854775807', 9223372036854775807n, i8)).toBe(true)
    expect(sameValue('1', '2', i8)).toBe(false)
    expect(sameValue('x', 'x', i8)).toBe(true)
    expect(sameValue('x', 'y', i8)).toBe(false)
    const n = column('numeric')
    expect(sameValue('1.50', 1.5, n)).toBe(true)
    expect(sameValue('1', 1n, n)).toBe(true)
    expect(sameValue('1e21', '1000000000000000000000', n)).toBe(true)
    expect(sameValue('-0.00', 0, n)).toBe(true)
    expect(sameValue('NaN', 'NaN', n)).toBe(true)
    expect(sameValue('NaN', 'Infinity', n)).toBe(false)
    expect(sameValue('0.1', 0.1, n)).toBe(true)
    expect(sameValue('0.1', '0.10000000000000001', n)).toBe(false)
  })

  it('compares int2/int4 strictly as numbers', () => {
    expect(sameValue(1, 1, column('int4'))).toBe(true)
    expect(sameValue(0, -0, column('int4'))).toBe(true)
    expect(sameValue(1, '1', column('int4'))).toBe(false)
  })

  it('compares float8 with Object.is and float4 at single precision', () => {
    const f8 = column('float8')
    expect(sameValue(Number.NaN, Number.NaN, f8)).toBe(true)
    expect(sameValue(0, -0, f8)).toBe(false)
    expect(sameValue(0.1, 0.1, f8)).toBe(true)
    expect(sameValue(0.1, Math.fround(0.1), f8)).toBe(false)
    const f4 = column('float4')
    expect(sameValue(0.1, Math.fround(0.1), f4)).toBe(true)
    expect(sameValue(16777217, 16777216, f4)).toBe(true)
    expect(sameValue(1.5, 1.25, f4)).toBe(false)
  })

  it('compares text exactly, char ignoring trailing spaces, uuid ignoring case', () => {
    expect(sameValue('a', 'a', column('text'))).toBe(true)
    expect(sameValue('a', 'a ', column('text'))).toBe(false)
    expect(sameValue('a', 'a  ', column('bpchar', { maxLength: 3 }))).toBe(true)
    expect(sameValue(' a', 'a', column('bpchar'))).toBe(false)
    expect(
      sameValue(
        'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
        'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
        column('uuid'),
      ),
    ).toBe(true)
    expect(sameValue(true, true, column('bool'))).toBe(true)
    expect(sameValue(true, 't', column('bool'))).toBe(false)
  })

  it('compares Dates by time and dates by calendar day', () => {
    const tz = column('timestamptz')
    expect(sameValue(new Date(5), new Date(5), tz)).toBe(true)
    expect(sameValue(new Date(5), new Date(6), tz)).toBe(false)
    expect(sameValue(new Date(5), 5, tz)).toBe(false)
    expect(sameValue(new Date(Number.NaN), new Date(Number.NaN), tz)).toBe(true)
    const d = column('date')
    expect(sameValue('2024-01-02', new Date('2024-01-02T10:00:00Z'), d)).toBe(true)
    expect(sameValue('2024-01-02', '2024-01-03', d)).toBe(false)
    expect(sameValue('infinity', 'infinity', d)).toBe(true)
    expect(sameValue('bad', 'bad', d)).toBe(true)
    expect(sameValue('bad', 'worse', d)).toBe(false)
  })

  it('takes an invalid Date as the same as another, with or without a mapping that cannot write it', () => {
    const invalid = () => new Date(Number.NaN)
    expect(sameValue(invalid(), invalid(), column('date'))).toBe(true)
    expect(sameValue(invalid(), new Date(0), column('date'))).toBe(false)
    expect(sameValue(invalid(), invalid(), column('timestamp'))).toBe(true)
    // A timestamp's text read as a Date (`infinity` and dates past a Date's range as invalid Dates),
    // written as its ISO text, which an invalid Date has none of; a date's text read as a Date.
    const iso: ValueMapping = { read: (v) => new Date(v as string), write: (v) => (v as Date).toISOString() }
    const stamp = column('text', { mapping: iso })
    const day = column('date', { mapping: { read: (v) => new Date(v as string), write: (v) => v } })
    for (const c of [stamp, day]) {
      expect(sameValue(invalid(), invalid(), c)).toBe(true)
      expect(sameValue(invalid(), new Date(0), c)).toBe(false)
      expect(sameValue(new Date(0), invalid(), c)).toBe(false)
      expect(sameValue(new Date(0), new Date(0), c)).toBe(true)
    }
    const isoEach: ValueMapping = {
      read: (v) => (v as string[]).map((t) => new Date(t)),
      write: (v) => (v as Date[]).map((d) => d.toISOString()),
    }
    const stamps = column('text', { mapping: isoEach })
    expect(sameValue([invalid(), new Date(5)], [invalid(), new Date(5)], stamps)).toBe(true)
    expect(sameValue([invalid(), new Date(5)], [invalid(), new Date(6)], stamps)).toBe(false)
    expect(sameValue([invalid(), new Date(5)], [invalid()], stamps)).toBe(false)
    expect(sameValue([invalid()], [new Date(5)], stamps)).toBe(false)
    // Anything else a mapping cannot write is the same as itself only.
    const unwritable = { at: 1 }
    expect(sameValue(unwritable, unwritable, stamp)).toBe(true)
    expect(sameValue(unwritable, { at: 1 }, stamp)).toBe(false)
  })

  it('compares bytes by content', () => {
    const c = column('bytea')
    expect(sameValue(Buffer.from([1, 2]), new Uint8Array([1, 2]), c)).toBe(true)
    expect(sameValue(Buffer.from([1, 2]), new Uint8Array([9, 1, 2]).subarray(1), c)).toBe(true)
    expect(sameValue(Buffer.from([1, 2]), Buffer.from([1, 3]), c)).toBe(false)
    expect(sameValue(Buffer.from([1]), Buffer.from([1, 0]), c)).toBe(false)
  })

  it('compares JSON deeply, ignoring key order', () => {
    const c = column('jsonb')
    expect(sameValue({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 }, c)).toBe(true)
    expect(sameValue({ a: 1 }, { a: 1, b: 2 }, c)).toBe(false)
    // An undefined property is no property: both are written {"a":1}.
    expect(sameValue({ a: 1, b: undefined }, { a: 1, c: undefined }, c)).toBe(true)
    expect(sameValue({ a: 1, b: undefined }, { a: 1, c: 2 }, c)).toBe(false)
    expect(sameValue([1, 2], [2, 1], c)).toBe(false)
    expect(sameValue([1], { 0: 1 }, c)).toBe(false)
    expect(sameValue({ 0: 1 }, [1], c)).toBe(false)
    expect(sameValue('1', 1, c)).toBe(false)
    expect(sameValue({ n: -0 }, { n: 0 }, c)).toBe(true)
    expect(sameValue({ a: null }, { a: null }, c)).toBe(true)
  })

  it('compares arrays element by element with the scalar rules', () => {
    const c = column('int8', { isArray: true })
    expect(sameValue([1, null, '3'], ['1', null, 3n], c)).toBe(true)
    expect(sameValue([1, null], [1, 2], c)).toBe(false)
    expect(sameValue([1], [1, 1], c)).toBe(false)
    expect(sameValue([], [], c)).toBe(true)
    expect(sameValue([1], 1, c)).toBe(false)
    expect(sameValue([undefined], [undefined], c)).toBe(false)
    const j = column('jsonb', { isArray: true })
    expect(sameValue([{ a: 1, b: 2 }, null], [{ b: 2, a: 1 }, null], j)).toBe(true)
  })
})
