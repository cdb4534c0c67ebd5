import { redactUrl } from '@pipeflush/testkit'
import { describe, expect, test } from 'vitest'
import { TestkitUnavailableError } from '../../src/support/errors.ts'

describe('redactUrl', () => {
  test('hides the password, keeps the rest', () => {
    expect(redactUrl('postgres://app:s3cret@127.0.0.1:5432/db')).toBe('postgres://app:***@127.0.0.1:5432/db')
    expect(redactUrl('postgres://127.0.0.1/db')).toBe('postgres://127.0.0.1/db')
  })
  test('also when the URL does not parse', () => {
    expect(redactUrl('postgres://app:p@ss word@host/db')).not.toContain('ss word')
  })
})

describe('TestkitUnavailableError', () => {
  test('lists what was tried, numbered, and the fixes', () => {
    const e = new TestkitUnavailableError('a thing', ['A: no', 'B: no'], ['do C'])
    expect(e.message).toBe(
      'pipeflush testkit: could not provide a thing.\nTried, in order:\n  1. A: no\n  2. B: no\nTo fix, any one of:\n  - do C',
    )
  })
})
