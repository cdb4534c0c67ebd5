import type { Entity, EntityManager } from '@pipeflush/core'
import { expect } from 'vitest'
import { ROWS } from './scripted-client.ts'

/** The changes every flush here writes: a new author and their new book, a renamed author, a removed book. */
export interface Changes {
  readonly ada: Entity
  readonly notes: Entity
  readonly bo: Entity
  readonly draft: Entity
}

/**
 * Makes the changes in `em`: four statements in two waves (the new book after its new author).
 *
 * @example
 * const changes = makeChanges(root.fork())
 */
export function makeChanges(em: EntityManager): Changes {
  const ada = em.create('author', { name: 'Ada' })
  const notes = em.create('book', { author_id: ada, title: 'Notes' })
  const bo = em.merge('author', ROWS.bo)
  bo['name'] = 'Bob'
  const draft = em.merge('book', ROWS.draft)
  em.remove(draft)
  return { ada, notes, bo, draft }
}

/** Asserts that `em` still holds the changes as made, not flushed (a failed flush leaves them so). */
export function expectPending(em: EntityManager, c: Changes): void {
  expect(em.pending).toEqual({ inserts: 2, updates: 1, deletes: 1, upserts: 0 })
  expect([c.ada, c.notes, c.bo, c.draft].map((e) => em.stateOf(e))).toEqual([
    'new',
    'new',
    'managed',
    'removed',
  ])
  expect(c.bo['name']).toBe('Bob')
}

/** Asserts that `em` holds the changes as flushed. */
export function expectFlushed(em: EntityManager, c: Changes): void {
  expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
  expect([c.ada, c.notes, c.bo].map((e) => em.stateOf(e))).toEqual(['managed', 'managed', 'managed'])
}
