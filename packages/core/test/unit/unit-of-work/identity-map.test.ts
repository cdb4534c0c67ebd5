import { describe, expect, it } from 'vitest'
import type { EntityState } from '../../../src/track/entity-state.ts'
import { IdentityMap } from '../../../src/unit-of-work/identity-map.ts'
import { table, tracked } from '../track/fixtures.ts'

function state(tableKey: string, key: string | null): EntityState {
  const s = tracked(table(tableKey), {}).state
  s.key = key
  return s
}

describe('IdentityMap', () => {
  it('finds a state by table and canonical key', () => {
    const map = new IdentityMap()
    const tag1 = state('tag', '1')
    const author1 = state('author', '1')
    map.set(tag1)
    map.set(author1)
    expect(map.get('tag', '1')).toBe(tag1)
    expect(map.get('author', '1')).toBe(author1)
    expect(map.get('tag', '2')).toBeUndefined()
    expect(map.get('book', '1')).toBeUndefined()
    expect(map.size).toBe(2)
  })

  it('replaces the state mapped under the same key', () => {
    const map = new IdentityMap()
    const first = state('tag', '1')
    const second = state('tag', '1')
    map.set(first)
    map.set(second)
    expect(map.get('tag', '1')).toBe(second)
    expect(map.size).toBe(1)
  })

  it('refuses a state without a key (INTERNAL_ERROR: a bug of the caller)', () => {
    const map = new IdentityMap()
    expect(() => map.set(state('tag', null))).toThrow(
      expect.objectContaining({
        code: 'INTERNAL_ERROR',
        message: expect.stringContaining('IdentityMap.set: an entity without a key cannot be mapped'),
      }),
    )
    expect(map.size).toBe(0)
  })

  it('deletes by the state, ignoring a state without key or not mapped', () => {
    const map = new IdentityMap()
    const tag1 = state('tag', '1')
    const tag2 = state('tag', '2')
    map.set(tag1)
    map.set(tag2)
    map.delete(state('tag', null))
    map.delete(state('author', '1'))
    expect(map.size).toBe(2)
    map.delete(tag1)
    expect(map.get('tag', '1')).toBeUndefined()
    expect(map.get('tag', '2')).toBe(tag2)
    expect(map.size).toBe(1)
  })

  it('lists every state table by table, in insertion order, and clears', () => {
    const map = new IdentityMap()
    const tag2 = state('tag', '2')
    const author1 = state('author', '1')
    const tag1 = state('tag', '1')
    for (const s of [tag2, author1, tag1]) map.set(s)
    expect([...map.values()]).toEqual([tag2, tag1, author1])
    expect([...map.values()][1]).toBe(tag1)
    map.clear()
    expect(map.size).toBe(0)
    expect([...map.values()]).toEqual([])
    expect(map.get('tag', '2')).toBeUndefined()
  })

  it('answers alike whether states were mapped before or after the last read (they are indexed on read)', () => {
    const map = new IdentityMap()
    const early = state('tag', '1')
    map.set(early)
    expect(map.get('tag', '1')).toBe(early) // indexed here
    const replaced = state('tag', '1')
    const later = Array.from({ length: 1000 }, (_, i) => state(i % 2 ? 'tag' : 'author', String(i + 2)))
    for (const s of [replaced, ...later]) map.set(s)
    map.delete(later[10]!) // a delete indexes what was mapped before it
    expect(map.get('tag', '1')).toBe(replaced)
    expect(map.get('author', '12')).toBeUndefined()
    expect(map.get('tag', '1001')).toBe(later[999])
    expect(map.size).toBe(1000)
    map.set(later[10]!)
    expect([...map.values()].length).toBe(1001)
    map.set(state('tag', '5000'))
    map.clear()
    expect(map.size).toBe(0)
  })

  it('maps a state at once with setIndexed, after what set left to index, a later one winning', () => {
    const map = new IdentityMap()
    const first = state('tag', '1')
    map.setIndexed(first)
    expect(map.get('tag', '1')).toBe(first)
    // Mapped by set, not indexed yet: setIndexed goes after it, in order.
    const pending = state('tag', '2')
    map.set(pending)
    const second = state('tag', '2')
    map.setIndexed(second)
    expect(map.get('tag', '2')).toBe(second)
    map.setIndexed(state('author', '1'))
    expect([...map.values()].map((s) => `${s.table.key}:${s.key}`)).toEqual(['tag:1', 'tag:2', 'author:1'])
    expect(() => map.setIndexed(state('tag', null))).toThrow(
      expect.objectContaining({
        code: 'INTERNAL_ERROR',
        message: expect.stringContaining('IdentityMap.setIndexed'),
      }),
    )
    expect(map.size).toBe(3)
  })
})
