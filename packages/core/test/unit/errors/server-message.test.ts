import { describe, expect, test } from 'vitest'
import { serverMessage } from '../../../src/errors/pipeflush-error.ts'

// The server quotes the value at fault of a data exception (SQLSTATE class 22) as it is: its own
// double quotes, backslashes and line breaks are not escaped, so no quote tells where it ends.
describe('serverMessage', () => {
  const secret = 'SECRET-4111'
  test.each([
    ['no quotes', `card ${secret} exp`],
    ['double quotes', `card "${secret}" exp`],
    ['two pairs of quotes', `a"b"${secret}"c"d`],
    ['one quote', `x"${secret}`],
    ['a quote at each end', `"${secret}"`],
    ['doubled quotes', `a""${secret}""b`],
    ['backslashes', `a\\"${secret}\\\\"b\\`],
    ['line breaks', `a"\n${secret}\n"b\r\n`],
  ])('a value holding %s is hidden whole', (_, value) => {
    for (const message of [
      `invalid input syntax for type inet: "${value}"`,
      `malformed range literal: "${value}"`,
      `value "${value}" is out of range for type integer`,
      `invalid input value for enum "My Mood": "${value}"`,
    ]) {
      const shown = serverMessage(message, '22P02')
      expect(shown).not.toContain(secret)
      expect(shown).toContain('"(a value)"')
    }
  })

  test('keeps what is around the value', () => {
    expect(serverMessage('invalid input syntax for type inet: "a"b"c"', '22P02')).toBe(
      'invalid input syntax for type inet: "(a value)"',
    )
    expect(serverMessage('value "1"2" is out of range for type integer', '22003')).toBe(
      'value "(a value)" is out of range for type integer',
    )
    expect(serverMessage('division by zero', '22012')).toBe('division by zero')
  })

  test('messages of other classes are kept: they name tables, columns and constraints', () => {
    const m = 'duplicate key value violates unique constraint "card_number_key"'
    expect(serverMessage(m, '23505')).toBe(m)
    expect(serverMessage(m, undefined)).toBe(m)
  })
})
