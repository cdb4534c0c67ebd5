import { describe, expect, it } from 'vitest'
import { compareInt8Texts, int8Text } from '../../../src/values/integer.ts'

describe('int8Text', () => {
  it('gives the canonical text of every accepted form, fast paths and BigInt path alike', () => {
    expect([0, -0, 7, -7, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER].map(int8Text)).toEqual([
      '0',
      '0',
      '7',
      '-7',
      '9007199254740991',
      '-9007199254740991',
    ])
    expect(['0', '-0', '007', '-007', '123456789012345678', '-123456789012345678'].map(int8Text)).toEqual([
      '0',
      '0',
      '7',
      '-7',
      '123456789012345678',
      '-123456789012345678',
    ])
    expect(['9223372036854775807', '-9223372036854775808', 9223372036854775807n].map(int8Text)).toEqual([
      '9223372036854775807',
      '-9223372036854775808',
      '9223372036854775807',
    ])
  })

  it('rejects what is not an int8, whichever path it takes', () => {
    for (const bad of [
      '',
      '-',
      '1.5',
      ' 1',
      '1 ',
      '+1',
      '١٢',
      '9223372036854775808',
      1.5,
      2 ** 53,
      Number.NaN,
    ]) {
      expect(() => int8Text(bad), String(bad)).toThrow()
    }
  })
})

describe('compareInt8Texts', () => {
  it('orders canonical texts numerically, without BigInt', () => {
    const texts = ['10', '9', '-9', '-10', '0', '9223372036854775807', '-9223372036854775808', '100', '-1']
    const expected = [...texts].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0))
    expect([...texts].sort(compareInt8Texts)).toEqual(expected)
    expect(compareInt8Texts('5', '5')).toBe(0)
    expect(compareInt8Texts('-9', '-10')).toBe(1)
  })
})
