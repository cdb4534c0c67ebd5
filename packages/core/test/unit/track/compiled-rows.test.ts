import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { decodeRow } from '../../../src/read/decode-row.ts'
import { buildTableModel } from '../../../src/schema/build-table.ts'
import { compiled } from '../../../src/track/compiled-rows.ts'
import { snapshotOf } from '../../../src/track/snapshot.ts'
import { inheritsNothing } from '../inherits-nothing.ts'

/**
 * Column names that are no JavaScript identifier, or that name something an object inherits, or that
 * try to end the generated code: each must be an ordinary own property of the rows and snapshots.
 */
const ODD_NAMES = [
  'id',
  'a "quoted" name',
  'back\\slash',
  'line\nbreak',
  'separator\u2028here',
  '__proto__',
  'constructor',
  '0',
  '"]; throw new Error("injected"); //',
  "'); throw 1; ('",
] as const

/** A column name written through a constant: `x.__proto__` reads as the deprecated accessor. */
const PROTO = '__proto__'

const odd = buildTableModel({
  schema: 'public',
  name: 'odd names',
  columns: ODD_NAMES.map((name, i) => ({
    name,
    type: i === 0 ? 'int4' : i === 5 ? 'jsonb' : i === 6 ? 'timestamptz' : i === 7 ? 'int8' : 'text',
    nullable: i !== 0,
  })),
  primaryKey: ['id'],
})

/** The selected texts of a row of {@link odd}: `c0...` in table order. */
const RAW: Record<string, string | null> = {
  c0: '7',
  c1: 'one',
  c2: 'two',
  c3: null,
  c4: 'four',
  c5: '{"nested": [1, 2]}',
  c6: '2024-01-02 03:04:05.123456+00',
  c7: '9007199254740993',
  c8: 'eight',
  c9: 'nine',
}

/** What a row and a snapshot of {@link odd} hold, as JSON (a Date as its ISO text). */
function shown(row: Record<string, unknown>): string {
  return JSON.stringify(ODD_NAMES.map((name) => [name, Object.hasOwn(row, name), row[name]]))
}

describe('rows decoded and copied by code built per table', () => {
  it('decode every column into an own property, whatever its name', () => {
    const row = decodeRow(odd, RAW)
    // Own properties, every column's (an integer-like name lists first, as in any object).
    expect(Object.keys(row).sort()).toEqual([...ODD_NAMES].sort())
    expect(inheritsNothing(row)).toBe(true)
    expect(row['id']).toBe(7)
    expect(row['line\nbreak']).toBeNull()
    expect(row[PROTO]).toEqual({ nested: [1, 2] })
    expect((row['constructor'] as Date).toISOString()).toBe('2024-01-02T03:04:05.123Z')
    expect(row['0']).toBe('9007199254740993')
    expect(row['"]; throw new Error("injected"); //']).toBe('eight')
    expect(row["'); throw 1; ('"]).toBe('nine')
  })

  it('copy every column into a snapshot, objects copied, whatever its name', () => {
    const row = decodeRow(odd, RAW)
    const snapshot = snapshotOf(odd, row)
    expect(Object.keys(snapshot).sort()).toEqual([...ODD_NAMES].sort())
    expect(inheritsNothing(snapshot)).toBe(true)
    expect(shown(snapshot)).toBe(shown(row))
    expect(snapshot[PROTO]).not.toBe(row[PROTO])
    expect(snapshot['constructor']).not.toBe(row['constructor'])
    ;(row['constructor'] as Date).setTime(0)
    expect((snapshot['constructor'] as Date).getTime()).toBe(Date.UTC(2024, 0, 2, 3, 4, 5, 123))
  })

  it('name the table and the column of a text that does not decode, as before', () => {
    let error: unknown
    try {
      decodeRow(odd, { ...RAW, c7: 'not a number' })
    } catch (e) {
      error = e
    }
    expect((error as { code?: string }).code).toBe('INVALID_VALUE')
    expect((error as Error).message).toContain('odd names')
    expect((error as Error).message).toContain('0')
  })

  it('fail loudly when the generated code is wrong, rather than fall back', () => {
    expect(() => compiled([], 'return (', [], () => 'fallback')).toThrow(SyntaxError)
  })

  it('fall back to the same work, looped, where code may not be made from text', async () => {
    const src = (path: string) => JSON.stringify(fileURLToPath(new URL(path, import.meta.url)))
    const script = `
      import { decodeRow } from ${src('../../../src/read/decode-row.ts')}
      import { buildTableModel } from ${src('../../../src/schema/build-table.ts')}
      import { snapshotOf } from ${src('../../../src/track/snapshot.ts')}
      let refused = false
      try { new Function('return 1') } catch (e) { refused = e instanceof EvalError }
      const names = ${JSON.stringify(ODD_NAMES)}
      const odd = buildTableModel({
        schema: 'public', name: 'odd names', primaryKey: ['id'],
        columns: names.map((name, i) => ({ name, nullable: i !== 0,
          type: i === 0 ? 'int4' : i === 5 ? 'jsonb' : i === 6 ? 'timestamptz' : i === 7 ? 'int8' : 'text' })),
      })
      const row = decodeRow(odd, ${JSON.stringify(RAW)})
      const snapshot = snapshotOf(odd, row)
      const shown = (r) => JSON.stringify(names.map((n) => [n, Object.hasOwn(r, n), r[n]]))
      console.log(JSON.stringify({ refused, row: shown(row), snapshot: shown(snapshot),
        copied: snapshot.__proto__ !== row.__proto__ }))
    `
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--disallow-code-generation-from-strings', '--input-type=module', '-e', script],
        { timeout: 20_000 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      ),
    )
    const got = JSON.parse(out) as { refused: boolean; row: string; snapshot: string; copied: boolean }
    expect(got.refused).toBe(true)
    const row = decodeRow(odd, RAW)
    expect(got.row).toBe(shown(row))
    expect(got.snapshot).toBe(shown(row))
    expect(got.copied).toBe(true)
  })
})
