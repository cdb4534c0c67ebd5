import { describe, expect, test } from 'vitest'
import { COPY_CHUNK_CHARS, copyData, copyField } from '../../../src/flush/copy-data.ts'
import { pipelined, simpleBatch } from '../../../src/flush/statement-text.ts'
import type { PlannedStatement } from '../../../src/plan/types.ts'

describe('copyField', () => {
  test('escapes what COPY text format reads specially, nothing else', () => {
    expect(copyField(null)).toBe('\\N')
    expect(copyField('')).toBe('')
    expect(copyField('\\N')).toBe('\\\\N') // the text "\N", not NULL
    expect(copyField('\\.')).toBe('\\\\.') // never the end-of-data marker
    expect(copyField('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e')
    expect(copyField('{"a\\\\b","c,d"}')).toBe('{"a\\\\\\\\b","c,d"}')
    const plain = `it's "quoted", ; 😀 ünï \u0001\u007f`
    expect(copyField(plain)).toBe(plain)
  })
})

describe('copyData', () => {
  test('one line per row in statement order, fields by tab, from the column texts', () => {
    expect(
      copyData({
        params: [
          ['1', '2'],
          ['a\tb', null],
        ],
        rowCount: 2,
      }),
    ).toEqual(['1\ta\\tb\n2\t\\N\n'])
  })

  test('chunks of whole rows, about COPY_CHUNK_CHARS each, that join into the whole data', () => {
    const n = 20_000
    const ids = Array.from({ length: n }, (_, i) => String(i))
    const values = ids.map((i) => `value ${i}\n`)
    const chunks = copyData({ params: [ids, values], rowCount: n })
    expect(chunks.length).toBeGreaterThan(3)
    for (const chunk of chunks.slice(0, -1)) {
      expect(chunk.length).toBeGreaterThanOrEqual(COPY_CHUNK_CHARS)
      expect(chunk.length).toBeLessThan(COPY_CHUNK_CHARS + 100)
    }
    for (const chunk of chunks) expect(chunk.endsWith('\n')).toBe(true)
    const lines = chunks.join('').split('\n')
    expect(lines).toHaveLength(n + 1)
    expect(lines[n - 1]).toBe(`${n - 1}\tvalue ${n - 1}\\n`)
  })
})

describe('a COPY statement in a message', () => {
  const copy: PlannedStatement = {
    kind: 'insert',
    table: 'tag',
    columns: ['id', 'name'],
    sql: 'copy "public"."tag" ("id", "name") from stdin',
    params: [
      ['1', '2'],
      ["it's", null],
    ],
    rowCount: 2,
    keys: [1, 2],
    fixup: false,
    copy: true,
  }

  test('goes as its text, its data beside the message, in order', () => {
    const batch = simpleBatch(['begin', copy, { ...copy, params: [['3'], ['c']], rowCount: 1 }])
    expect(batch.text).toBe(`begin;\n${copy.sql};\n${copy.sql}`)
    expect(batch.copies).toEqual([["1\tit's\n2\t\\N\n"], ['3\tc\n']])
    expect(simpleBatch(['begin']).copies).toEqual([])
  })

  test('is never pipelined as an extended-protocol statement', () => {
    expect(() => pipelined(copy, true)).toThrow(expect.objectContaining({ code: 'INTERNAL_ERROR' }))
  })
})
