import { isPipeflushError } from '@pipeflush/core'
import { createEntityManagerFactory } from '@pipeflush/kysely'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { outboxHooks } from '../src/outbox.ts'
import { createSchema, type DB } from '../src/schema.ts'

const db = useTestDatabase()

beforeAll(async () => {
  await createSchema((text) => db.sql.unsafe(text))
})

/** Authors named `name`, and the outbox events that say they were created. */
async function written(name: string) {
  const [row] = await db.sql`
    select (select count(*)::int from author where name = ${name}) as authors,
           (select count(*)::int from book b join author a on a.id = b.author_id where a.name = ${name}) as books,
           (select count(*)::int from outbox where topic = 'author.created' and payload->>'name' = ${name}) as created,
           (select count(*)::int from outbox where topic = 'book.published' and payload->>'isbn' like ${`${name}-%`}) as published`
  return row as { authors: number; books: number; created: number; published: number }
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each(['upstream', 'downstream'] as const)(
    'the outbox events commit with the change they describe, or neither does: %s cuts stepped through the flush',
    async (direction) => {
      const app = db.client(driver, { max: 1 })
      // Ids for the whole sweep fetched at start: a cut flush that fetched ids (its failures use them up)
      // would send more than the flush the sweep is measured on, and the cuts would not reach its end.
      const factory = await createEntityManagerFactory<DB>({
        client: app.client,
        hooks: outboxHooks,
        idBlockSize: 1000,
      })
      const create = (name: string) =>
        factory.run((em) => {
          const author = em.create('author', { name, bio: null })
          for (const n of [1, 2])
            em.create('book', {
              author_id: author,
              title: `${name} ${n}`,
              isbn: `${name}-${n}`,
              price: '9.99',
            })
        })
      const cut = async (offset: number, name: string) => {
        // The pool's connection is open (a cut one is replaced by this read): the cut counts the flush's
        // bytes only, not those of opening a connection.
        await factory.em().find('author', { name: '' })
        await db.proxy.addToxic('limit_data', { bytes: offset }, { stream: direction, name: 'cut' })
        try {
          return await create(name).then(
            () => undefined,
            (e: unknown) => e,
          )
        } finally {
          await db.proxy.removeToxic('cut')
        }
      }
      // A flush of the same shapes on a connection opened after a cut (as every cut flush is: named
      // statements are prepared again) gives the number of bytes a flush sends.
      await create(`${driver}-${direction}-warm-0`)
      await cut(0, `${driver}-${direction}-calibrate`)
      await factory.em().find('author', { name: '' })
      app.counter.reset()
      const warm = await create(`${driver}-${direction}-warm-1`)
      expect(warm.report.inserted).toBe(6) // the author, two books, three events
      const bytes = direction === 'upstream' ? app.counter.read().bytesOut : app.counter.read().bytesIn
      const step = Math.max(1, Math.floor(bytes / 40))
      const outcomes = { committed: 0, failed: 0 }
      for (let offset = 0; offset <= bytes + step; offset += step) {
        const name = `${driver}-${direction}-${offset}`
        const error = await cut(offset, name)
        if (error !== undefined) {
          expect(
            isPipeflushError(error, 'CONNECTION_LOST') || isPipeflushError(error, 'COMMIT_OUTCOME_UNKNOWN'),
            `offset ${offset}: ${String(error)}`,
          ).toBe(true)
        }
        const state = await written(name)
        // Both or neither: the author with its books, and the events that describe them.
        const all = { authors: 1, books: 2, created: 1, published: 2 }
        const none = { authors: 0, books: 0, created: 0, published: 0 }
        expect([all, none], `offset ${offset} of ${bytes}`).toContainEqual(state)
        if (state.authors === 1) outcomes.committed++
        else outcomes.failed++
        if (error === undefined) expect(state).toEqual(all)
      }
      // Upstream, the sweep crosses the commit: cuts in the flush commit nothing, past its end everything.
      // Downstream the server got the whole flush: it committed, whatever answer was lost.
      expect(outcomes.committed).toBeGreaterThan(0)
      if (direction === 'upstream') expect(outcomes.failed).toBeGreaterThan(0)
    },
  )
})
