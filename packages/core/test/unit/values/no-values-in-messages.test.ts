import { describe, expect, it } from 'vitest'
import type { PipeflushError } from '../../../src/errors.ts'
import type { ColumnModel } from '../../../src/model/model.ts'
import { decodeValue, encodeValue } from '../../../src/values/index.ts'
import { describeKey, describeWritten } from '../../../src/values/location.ts'

const CARD = '4111 1111 1111 1111'
const EMAIL = 'ada@example.org'
const OTHER = 'grace@example.org'

function column(type: ColumnModel['type'], more: Partial<ColumnModel> = {}): ColumnModel {
  return {
    name: 'c',
    type,
    sqlType: type,
    isArray: false,
    nullable: true,
    hasDefault: false,
    identity: null,
    sequence: null,
    generated: false,
    ...more,
  }
}

function thrown(fn: () => unknown): PipeflushError {
  try {
    fn()
  } catch (e) {
    return e as PipeflushError
  }
  throw new Error('expected an error')
}

// Messages and stacks go to logs and error trackers: the values an application wrote stay out of
// them, on the error (not enumerable) for code that wants them.
describe('INVALID_VALUE messages show no written value', () => {
  const at = { table: 'payment', key: { email: EMAIL } }
  const cases: [string, () => unknown, unknown][] = [
    ['a card number into an int8', () => encodeValue(CARD, column('int8'), at), CARD],
    [
      'a card number too long for varchar(16)',
      () => encodeValue(CARD, column('varchar', { maxLength: 16 }), at),
      CARD,
    ],
    ['an e-mail address into a uuid', () => encodeValue(OTHER, column('uuid'), at), OTHER],
    [
      'an e-mail address as an enum label',
      () => encodeValue(OTHER, column('enum', { enumLabels: ['a'] }), at),
      OTHER,
    ],
    ['a secret in a number column', () => encodeValue(123456789.5, column('int4'), at), 123456789.5],
    ['a text the server printed', () => decodeValue(CARD, column('int4'), at), CARD],
  ]
  it.each(cases)('%s', (_label, fn, value) => {
    const e = thrown(fn)
    expect(e.code).toBe('INVALID_VALUE')
    for (const text of [e.message, e.stack ?? '']) {
      expect(text).not.toContain(String(value))
      expect(text).not.toContain(EMAIL) // the row's key, a text, is described too
    }
    expect(JSON.stringify(e)).not.toContain(String(value)) // serialized: `keys` only, as given
    expect(e.value).toBe(value)
    expect(Object.keys(e)).not.toContain('value')
  })

  it('describes keys that name rows (integers, uuids), and only the kind of other keys and values', () => {
    expect([
      describeKey(7),
      describeKey(7n),
      describeKey('12'),
      describeKey('0189c1de-4d4b-7000-8000-000000000001'),
    ]).toEqual(['7', '7', "'12'", "'0189c1de-4d4b-7000-8000-000000000001'"])
    expect([
      describeKey(EMAIL),
      describeWritten(CARD),
      describeWritten(''),
      describeWritten(Number.NaN),
    ]).toEqual(['a string of 15 characters', 'a string of 19 characters', 'an empty string', 'NaN'])
  })
})
