import { defineSchema, EntityManager, isPipeflushError } from '@pipeflush/core'
import postgres from 'postgres'
import { describe, expect, test } from 'vitest'

// `remove` of an entity the unit of work no longer tracks deleted nothing without a word: the delete
// the application asked for was lost. It is INVALID_STATE, as an assignment to it is.

// postgres.js connects lazily: nothing here opens a connection (the port is closed anyway).
const sql = postgres('postgres://nobody@127.0.0.1:1/none', { max: 1 })

const schema = defineSchema({
  tag: { columns: { id: 'int4', name: 'text' }, primaryKey: ['id'] },
})

async function fork(): Promise<EntityManager> {
  return (await EntityManager.connect(sql, { schema })).fork()
}

function removeError(em: EntityManager, entity: Record<string, unknown>): unknown {
  try {
    em.remove(entity)
    return undefined
  } catch (e) {
    return e
  }
}

describe('remove', () => {
  test('of an entity forgotten by clear(): INVALID_STATE naming the table and key, nothing pending', async () => {
    const em = await fork()
    const tag = em.merge('tag', { id: 7, name: 'poetry' })
    em.clear()
    const error = removeError(em, tag)
    expect(isPipeflushError(error, 'INVALID_STATE')).toBe(true)
    expect((error as Error).message).toMatch(/^Cannot remove this tag \(key 7\): the entity is detached/)
    expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
  })

  test('of a new entity removed already (detached then): INVALID_STATE', async () => {
    const em = await fork()
    const tag = em.create('tag', { id: 8, name: 'prose' })
    em.remove(tag)
    expect(em.stateOf(tag)).toBe('detached')
    expect(isPipeflushError(removeError(em, tag), 'INVALID_STATE')).toBe(true)
    expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
  })

  test('of a managed entity twice: removed once, one delete pending', async () => {
    const em = await fork()
    const tag = em.merge('tag', { id: 9, name: 'drama' })
    em.remove(tag)
    expect(removeError(em, tag)).toBeUndefined()
    expect(em.stateOf(tag)).toBe('removed')
    expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 1, upserts: 0 })
  })
})
