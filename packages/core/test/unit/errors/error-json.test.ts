import { describe, expect, test } from 'vitest'
import { PipeflushError } from '../../../src/errors.ts'

describe('JSON.stringify of a PipeflushError', () => {
  // Bug (outside probe): an int8 key given as a bigint made JSON.stringify(error) throw "Do not know
  // how to serialize a BigInt", so a catch block logging the error threw instead.
  test('a bigint key, alone or in a composite key, is its decimal text', () => {
    const e = new PipeflushError('CONSTRAINT_VIOLATION', 'insert on big failed', {
      table: 'big',
      keys: [11n, [2n ** 70n, 'a'], 5],
      constraint: 'big_code_key',
      sqlState: '23505',
      flushId: 'f1',
    })
    expect(JSON.parse(JSON.stringify(e))).toEqual({
      name: 'PipeflushError',
      code: 'CONSTRAINT_VIOLATION',
      message: 'insert on big failed',
      table: 'big',
      keys: ['11', ['1180591620717411303424', 'a'], 5],
      constraint: 'big_code_key',
      sqlState: '23505',
      flushId: 'f1',
    })
  })

  test('the value at fault, the DETAIL and the cause stay out', () => {
    const e = new PipeflushError('INVALID_VALUE', 'book.price (row id=7): not a numeric', {
      table: 'book',
      column: 'price',
      keys: [7],
      value: 'secret',
      detail: 'Key (card)=(4111) already exists.',
      cause: new Error('driver'),
    })
    const text = JSON.stringify(e)
    expect(text).not.toMatch(/secret|4111|driver/)
    expect(JSON.parse(text)).toEqual({
      name: 'PipeflushError',
      code: 'INVALID_VALUE',
      message: 'book.price (row id=7): not a numeric',
      table: 'book',
      column: 'price',
      keys: [7],
    })
  })
})
