import { describe, expect, it } from 'vitest'
import { registerState, stateOf } from '../../../src/track/entity-state.ts'
import { table, tracked } from './fixtures.ts'

describe('stateOf', () => {
  it('is undefined for anything that is not an entity', () => {
    for (const value of [undefined, null, 1, 'x', 1n, true, Symbol('s'), {}, [], () => 1, new Date()]) {
      expect(stateOf(value)).toBeUndefined()
    }
  })

  it('is the state behind an entity, not behind its row or a copy of it', () => {
    const { state, entity } = tracked(table('tag'), { id: 1, name: 'sf' })
    expect(stateOf(entity)).toBe(state)
    expect(stateOf(state.row)).toBeUndefined()
    expect(stateOf({ ...entity })).toBeUndefined()
    expect(stateOf(JSON.parse(JSON.stringify(entity)))).toBeUndefined()
  })

  it('follows the state as its status changes', () => {
    const { state, entity } = tracked(table('tag'), { id: 1, name: 'sf' }, 'new')
    expect(stateOf(entity)?.status).toBe('new')
    state.status = 'detached'
    expect(stateOf(entity)?.status).toBe('detached')
  })

  it('answers what registerState recorded for an object', () => {
    const { state } = tracked(table('tag'), { id: 1, name: 'sf' })
    const other = {}
    registerState(other, state)
    expect(stateOf(other)).toBe(state)
  })
})
