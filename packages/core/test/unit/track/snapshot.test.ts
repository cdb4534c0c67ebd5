import { describe, expect, it } from 'vitest'
import type { ScalarType } from '../../../src/model/model.ts'
import { buildTableModel } from '../../../src/schema/build-table.ts'
import { cloneValue } from '../../../src/track/clone.ts'
import { hasMutableColumns, snapshotOf } from '../../../src/track/snapshot.ts'
import { inheritsNothing } from '../inherits-nothing.ts'
import { BOOK_1, table } from './fixtures.ts'

/** A column name written through a constant: `x.__proto__` reads as the deprecated accessor. */
const PROTO = '__proto__'

describe('cloneValue', () => {
  it('returns primitives and null as they are', () => {
    for (const v of ['x', 1, -0, 10n, true, null, undefined]) expect(Object.is(cloneValue(v), v)).toBe(true)
  })

  it('copies a json value deeply', () => {
    const value = { a: [1, { b: 'c' }], d: { e: null } }
    const copy = cloneValue(value)
    expect(copy).not.toBe(value)
    expect(copy.a).not.toBe(value.a)
    expect(copy.a[1]).not.toBe(value.a[1])
    ;(value.a[1] as { b: string }).b = 'changed'
    value.d.e = 1 as never
    expect(copy).toEqual({ a: [1, { b: 'c' }], d: { e: null } })
  })

  it('copies an array and the Dates in it', () => {
    const date = new Date(1000)
    const value = ['x', date]
    const copy = cloneValue(value)
    value.push('y')
    date.setTime(2000)
    expect(copy).toHaveLength(2)
    expect((copy[1] as Date).getTime()).toBe(1000)
  })

  it('copies a Buffer as a Buffer', () => {
    const value = Buffer.from([1, 2, 3])
    const copy = cloneValue(value)
    expect(Buffer.isBuffer(copy)).toBe(true)
    expect(copy).not.toBe(value)
    value[0] = 9
    expect([...copy]).toEqual([1, 2, 3])
  })

  it('copies a Uint8Array as a Uint8Array (not a Buffer)', () => {
    const value = new Uint8Array([4, 5])
    const copy = cloneValue(value)
    expect(Buffer.isBuffer(copy)).toBe(false)
    expect(copy).toBeInstanceOf(Uint8Array)
    value[1] = 0
    expect([...copy]).toEqual([4, 5])
  })

  it('copies a Date', () => {
    const value = new Date('2024-01-02T03:04:05.678Z')
    const copy = cloneValue(value)
    expect(copy).toBeInstanceOf(Date)
    value.setUTCFullYear(1999)
    expect(copy.toISOString()).toBe('2024-01-02T03:04:05.678Z')
  })

  it('copies json-like data the way structuredClone does, the shortcut and the fallback alike', () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic['self'] = cyclic
    const deep: unknown[] = []
    let level = deep
    for (let i = 0; i < 40; i++) {
      const inner: unknown[] = []
      level.push(inner)
      level = inner
    }
    const values: unknown[] = [
      { n: 1, s: 'x', b: false, z: null, big: 7n, arr: [1, [2, [3]]], nested: { e: { f: 'g' } } },
      Object.assign(Object.create(null), { k: 'v' }),
      { at: new Date(5), list: [new Map([[1, 2]])] },
      JSON.parse('{"__proto__": {"x": 1}, "y": 2}'),
      cyclic,
      deep,
    ]
    for (const value of values) {
      const copy = cloneValue(value)
      expect(copy).not.toBe(value)
      expect(copy).toStrictEqual(structuredClone(value))
    }
    // The fallback keeps a cycle a cycle and a __proto__ key an own property.
    const copied = cloneValue(cyclic)
    expect(copied['self']).toBe(copied)
    expect(Object.hasOwn(cloneValue(values[3]) as object, '__proto__')).toBe(true)
  })

  it('throws for what structuredClone cannot copy, nested or not', () => {
    expect(() => cloneValue({ a: [() => 1] })).toThrow()
    expect(() => cloneValue({ a: Symbol('s') })).toThrow()
  })
})

describe('snapshotOf', () => {
  it('holds every column of the table, in table order, unset ones as undefined, nothing else', () => {
    const row = { id: BOOK_1, author_id: '1', title: 'Notes', extra: 'dropped' }
    const snapshot = snapshotOf(table('book'), row)
    expect(Object.keys(snapshot)).toEqual([
      'id',
      'author_id',
      'title',
      'tags',
      'meta',
      'cover',
      'published_at',
      'isbn',
    ])
    expect(snapshot.title).toBe('Notes')
    expect(snapshot.tags).toBeUndefined()
    expect('extra' in snapshot).toBe(false)
    expect(inheritsNothing(snapshot)).toBe(true)
  })

  it('is a deep copy: mutating the row values in place does not reach it', () => {
    const row = {
      id: BOOK_1,
      author_id: '1',
      title: 'Notes',
      tags: ['a'],
      meta: { pages: 10, chapters: [{ n: 1 }] },
      cover: Buffer.from('png'),
      published_at: new Date(0),
      isbn: null,
    }
    const snapshot = snapshotOf(table('book'), row)
    row.tags.push('b')
    row.meta.pages = 11
    row.meta.chapters[0]!.n = 2
    row.cover.write('jpg')
    row.published_at.setTime(5000)
    expect(snapshot.tags).toEqual(['a'])
    expect(snapshot.meta).toEqual({ pages: 10, chapters: [{ n: 1 }] })
    expect((snapshot.cover as Buffer).toString()).toBe('png')
    expect((snapshot.published_at as Date).getTime()).toBe(0)
  })

  it('copies a column named __proto__ as an own value', () => {
    const t = buildTableModel({
      schema: 'public',
      name: 'p',
      columns: [
        { name: 'id', type: 'int4' },
        { name: '__proto__', type: 'jsonb' },
      ],
      primaryKey: ['id'],
    })
    const row = JSON.parse('{"id": 1, "__proto__": {"a": 1}}') as Record<string, unknown>
    const snapshot = snapshotOf(t, row)
    expect(Object.hasOwn(snapshot, '__proto__')).toBe(true)
    expect(snapshot[PROTO]).toEqual({ a: 1 })
    expect(snapshot[PROTO]).not.toBe(row[PROTO])
  })
})

describe('hasMutableColumns', () => {
  function tableOf(type: ScalarType, isArray = false) {
    return buildTableModel({
      schema: 'public',
      name: 't',
      columns: [
        { name: 'id', type: 'int4' },
        { name: 'c', type, isArray },
      ],
      primaryKey: ['id'],
    })
  }

  it('is true for json, jsonb, bytea, timestamp, timestamptz and any array', () => {
    const mutable: [ScalarType, boolean][] = [
      ['json', false],
      ['jsonb', false],
      ['bytea', false],
      ['timestamp', false],
      ['timestamptz', false],
      ['int4', true],
      ['text', true],
    ]
    expect(mutable.map(([type, isArray]) => hasMutableColumns(tableOf(type, isArray)))).toEqual(
      mutable.map(() => true),
    )
  })

  it('is false for scalar numbers, text, uuid, bool', () => {
    const immutable: ScalarType[] = ['int2', 'int4', 'int8', 'numeric', 'float8', 'text', 'uuid', 'bool']
    expect(immutable.map((type) => hasMutableColumns(tableOf(type)))).toEqual(immutable.map(() => false))
  })
})
