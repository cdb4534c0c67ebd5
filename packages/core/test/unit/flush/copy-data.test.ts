import { describe, expect, test } from 'vitest'
import { COPY_CHUNK_BYTES, copyData, copyField } from '../../../src/flush/copy-data.ts'
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
      }).map(String),
    ).toEqual(['1\ta\\tb\n2\t\\N\n'])
  })

  test('chunks of whole rows, about COPY_CHUNK_BYTES each, that join into the whole data', () => {
    const n = 20_000
    const ids = Array.from({ length: n }, (_, i) => String(i))
    // Multi-byte characters: chunks are counted in bytes.
    const values = ids.map((i) => (Number(i) % 3 === 0 ? `välue 😀 ${i}\n` : `value ${i}`))
    const chunks = copyData({ params: [ids, values], rowCount: n })
    expect(chunks.length).toBeGreaterThan(3)
    for (const chunk of chunks.slice(0, -1)) {
      expect(chunk.length).toBeGreaterThanOrEqual(COPY_CHUNK_BYTES)
      expect(chunk.length).toBeLessThan(COPY_CHUNK_BYTES + 100)
    }
    for (const chunk of chunks) expect(chunk.at(-1)).toBe(10)
    const lines = Buffer.concat(chunks).toString('utf8').split('\n')
    expect(lines).toHaveLength(n + 1)
    expect(lines[n - 1]).toBe(`${n - 1}\tvalue ${n - 1}`)
    expect(lines[n - 2]).toBe(`${n - 2}\tvälue 😀 ${n - 2}\\n`)
  })

  test('a field larger than a chunk goes whole, in a chunk of its own size', () => {
    const huge = 'é😀'.repeat(100_000)
    const chunks = copyData({
      params: [
        ['1', '2', '3'],
        ['a', huge, 'b'],
      ],
      rowCount: 3,
    })
    expect(Buffer.concat(chunks).toString('utf8')).toBe(`1\ta\n2\t${huge}\n3\tb\n`)
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
    expect(batch.copies.map((chunks) => [...chunks].map(String))).toEqual([["1\tit's\n2\t\\N\n"], ['3\tc\n']])
    expect(simpleBatch(['begin']).copies).toEqual([])
  })

  test('is never pipelined as an extended-protocol statement', () => {
    expect(() => pipelined(copy, true)).toThrow(expect.objectContaining({ code: 'INTERNAL_ERROR' }))
  })
})
