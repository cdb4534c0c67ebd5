import { describe, expect, it } from 'vitest'
import { decodeRow } from '../../../src/read/decode-row.ts'
import { decodeValue } from '../../../src/values/index.ts'
import { table, thrown } from '../track/fixtures.ts'

describe('decodeRow', () => {
  const book = table('book')
  const author = table('author')

  it('decodes every column as decodeValue does, a missing or null text as null', () => {
    const texts = [
      '0190a8c2-0000-7000-8000-000000000001',
      '7',
      'Dune',
      '{a,"b c",NULL}',
      '{"x": [1, 2]}',
      '\\x0102',
      '2024-01-02 03:04:05.123456+05:30',
      null,
    ]
    const raw = Object.fromEntries(texts.map((t, i) => [`c${i}`, t]))
    const row = decodeRow(book, raw)
    expect(Object.keys(row)).toEqual(book.columns.map((c) => c.name))
    book.columns.forEach((c, i) => {
      expect(row[c.name]).toEqual(decodeValue(texts[i] ?? null, c))
    })
    expect(decodeRow(book, {})).toEqual(Object.fromEntries(book.columns.map((c) => [c.name, null])))
  })

  it('a text its column cannot take fails as decodeValue does, naming the table and the column', () => {
    const bad = thrown(() => decodeRow(author, { c0: 'seven', c1: 'Ada', c2: null, c3: '1' }))
    // The key itself cannot be read: the row is named as a row read.
    const expected = thrown(() =>
      decodeValue('seven', author.columns[0]!, { table: author.key, what: 'a row read' }),
    )
    expect(bad.code).toBe('INVALID_VALUE')
    expect(bad).toEqual(expected)
    expect(bad.message).toContain(author.key)
    expect(bad.message).toContain('id')
  })
})
