import { readFile } from 'node:fs/promises'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory, relationsTypeSource } from '../../src/index.ts'
import { FORUM_DDL, type ForumDB } from '../fixtures/forum-db.ts'
import type { ForumRelations } from '../fixtures/forum-relations.ts'

// The relations relationsTypeSource writes for the forum of docs/reads.md, and a graph load typed by
// them: the one-to-one thread.thread_stat is one entity or null.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`${FORUM_DDL}
    insert into board (name) values ('General');
    insert into people (name, "boardId") values ('Ada', 1), ('Grace', 1);
    insert into follow values (2, 1);
    insert into thread (board_id, title) values (1, 'Hello'), (1, 'Quiet');
    insert into post ("threadId", author_id, reply_to_id, body) values (1, 1, null, 'first'), (1, 2, 1, 'reply');
    insert into thread_stat values (1, 2);
  `)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('relationsTypeSource writes the forum relations the type tests use; they type a graph load', async () => {
    const { client, counter } = db.client(driver, { max: 1 })
    const factory = await createEntityManagerFactory<ForumDB, ForumRelations>({
      client,
      schemas: ['public', 'forum_meta'],
    })
    const written = await readFile(new URL('../fixtures/forum-relations.ts', import.meta.url), 'utf8')
    expect(relationsTypeSource(factory.schema, 'ForumRelations')).toBe(written)

    const em = factory.em()
    await em.find('board', {}) // a warm connection
    counter.reset()
    const threads = await em.find(
      'thread',
      {},
      { with: { thread_stat: true, posts: { posts_by_reply_to: true, author: { followers: true } } } },
    )
    expect(counter.read().roundTrips).toBe(1)
    const hello = threads.find((t) => t.title === 'Hello')!
    const quiet = threads.find((t) => t.title === 'Quiet')!
    expect(em.related(hello, 'thread_stat')?.postCount).toBe(2)
    expect(em.related(quiet, 'thread_stat')).toBeNull()
    const first = em.related(hello, 'posts').find((p) => p.body === 'first')!
    expect(em.related(first, 'posts_by_reply_to').map((p) => p.body)).toEqual(['reply'])
    const ada = em.related(first, 'author')!
    expect(em.related(ada, 'followers').map((p) => p.name)).toEqual(['Grace'])
  })

  // Navigation is core's: a many-to-one or one-to-one loaded with a $where its row fails is null,
  // as `related` is typed; one not loaded is NOT_LOADED.
  test('related gives null for a relation loaded with a $where its row fails, NOT_LOADED for one not loaded', async () => {
    const { client, counter } = db.client(driver, { max: 1 })
    const factory = await createEntityManagerFactory<ForumDB, ForumRelations>({
      client,
      schemas: ['public', 'forum_meta'],
    })
    const em = factory.em()
    await em.find('board', {})
    counter.reset()
    const threads = await em.find(
      'thread',
      { title: 'Hello' },
      {
        with: {
          thread_stat: { $where: { postCount: 99 } },
          posts: { author: { $where: { name: 'Grace' } } },
        },
      },
    )
    expect(counter.read().roundTrips).toBe(1)
    const hello = threads[0]!
    expect(em.related(hello, 'thread_stat')).toBeNull()
    const authors = em.related(hello, 'posts').map((p) => [p.body, em.related(p, 'author')?.name ?? null])
    expect(authors.sort()).toEqual([
      ['first', null],
      ['reply', 'Grace'],
    ])
    const [first] = await factory.em().find('post', { body: 'first' })
    expect(() => em.related(first!, 'author')).toThrow(expect.objectContaining({ code: 'NOT_LOADED' }))
  })
})
