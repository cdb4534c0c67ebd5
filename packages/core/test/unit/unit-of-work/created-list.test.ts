import { describe, expect, it } from 'vitest'
import type { EntityState } from '../../../src/track/entity-state.ts'
import { CreatedList } from '../../../src/unit-of-work/created-list.ts'
import { table, tracked } from '../track/fixtures.ts'

/** A new entity's state. */
function created(): EntityState {
  return tracked(table('tag'), {}, 'new').state
}

describe('CreatedList', () => {
  it('holds the new entities in creation order; one no longer new is dropped when read', () => {
    const list = new CreatedList()
    const [a, b, c] = [created(), created(), created()]
    for (const s of [a, b, c]) list.add(s)
    list.delete(b)
    b.status = 'detached'
    expect([...list]).toEqual([a, c])
    expect(list.toArray()).toEqual([a, c])
  })

  it('hands out its array, and copies it before it next changes', () => {
    const list = new CreatedList()
    const [a, b] = [created(), created()]
    list.add(a)
    const taken = list.toArray()
    list.add(b)
    list.delete(a)
    a.status = 'managed'
    expect(taken).toEqual([a])
    expect(list.toArray()).toEqual([b])
  })

  it('puts an entity deleted and taken back last, once', () => {
    const list = new CreatedList()
    const [a, b] = [created(), created()]
    list.add(a)
    list.add(b)
    list.delete(a)
    a.status = 'detached'
    list.restore(a)
    a.status = 'new'
    expect(list.toArray()).toEqual([b, a])
    list.clear()
    expect(list.toArray()).toEqual([])
  })
})
