import { inspect } from 'node:util'
import { describe, expect, test } from 'vitest'
import { redactError, redactSecrets } from '../../../src/errors/redact.ts'

describe('redactSecrets', () => {
  test.each([
    ['postgres://app:s3cret@db:5432/x', 'postgres://app:***@db:5432/x'],
    ['postgresql://app:p%40ss@db/x?sslmode=require', 'postgresql://app:***@db/x?sslmode=require'],
    [
      'failed: postgres://u:a:b@h/db and again postgres://v:c@h2/db',
      'failed: postgres://u:***@h/db and again postgres://v:***@h2/db',
    ],
    ['host=db password=s3cret user=app', 'host=db password=*** user=app'],
    ["host=db password='s3 cret' user=app", 'host=db password=*** user=app'],
    ['postgres://app@db/x', 'postgres://app@db/x'],
    ['no secrets here', 'no secrets here'],
  ])('%s', (input, output) => {
    expect(redactSecrets(input)).toBe(output)
  })
})

describe('redactError', () => {
  test("scrubs the message, stack and string properties of an error and its causes (Node's URL errors keep the input)", () => {
    let urlError: unknown
    try {
      new URL('postgres://app:s3cret@[bad/db')
    } catch (e) {
      urlError = e
    }
    expect(inspect(urlError)).toContain('s3cret')
    const outer = new Error('connect failed for postgres://app:s3cret@db/x', { cause: urlError })
    redactError(outer)
    expect(inspect(outer, { depth: 5, showHidden: true })).not.toContain('s3cret')
    expect(outer.message).toBe('connect failed for postgres://app:***@db/x')
  })

  test('leaves read-only properties and circular causes alone', () => {
    const e = new Error('postgres://a:b@h/d') as Error & { cause?: unknown }
    Object.defineProperty(e, 'query', { value: 'postgres://a:b@h/d', writable: false, enumerable: false })
    e.cause = e
    expect(() => redactError(e)).not.toThrow()
    expect(e.message).toBe('postgres://a:***@h/d')
  })
})
