import { describe, expect, test } from 'vitest'
import { jsonValueOf } from '../../src/json-text.ts'

// A string given to a json column is JSON text, parsed where the value is what the text says: a
// number the parse would change was stored changed (found by a review).
describe('jsonValueOf', () => {
  test.each([
    ['{"theme":"dark"}', { theme: 'dark' }],
    ['"dark"', 'dark'],
    [
      '[1.0, 1e2, 0.1, -0, 15e-1, 9007199254740991, 1.5E+300, 0.000001]',
      [1, 100, 0.1, -0, 1.5, 9007199254740991, 1.5e300, 0.000001],
    ],
    ['{"a": null, "b": [true, false]}', { a: null, b: [true, false] }],
  ])('%s is the value it says', (text, value) => {
    expect(jsonValueOf(text)).toEqual({ value })
  })

  test('text nested deeper than the reviver can recurse is read as JSON.parse reads it', () => {
    const deep = `${'['.repeat(4000)}1${']'.repeat(4000)}`
    expect('value' in jsonValueOf(deep)).toBe(true)
  })

  test.each([
    ['{theme: dark}', /not JSON/],
    ['', /not JSON/],
    ['{"id": 12345678901234567891}', /more digits than a JavaScript number keeps/],
    ['[0.10000000000000000000001]', /more digits/],
    ['[1e400]', /more digits/],
    ['9007199254740993', /more digits/],
    ['null', /the JSON null/],
  ])('%s is refused', (text, problem) => {
    const parsed = jsonValueOf(text)
    expect('problem' in parsed && parsed.problem).toMatch(problem)
  })
})
