import { randomBytes } from 'node:crypto'
import { type Entity, EntityManager } from '@pipeflush/core'
import { createDatabase, createRoundTripCounter, dropDatabase, openClient } from '@pipeflush/testkit'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { describeRelations, FORUM_RELATIONS } from '../fixtures/forum-relations.ts'

// Relation names on a real catalog: the forum of docs/reads.md (a plural table, a self-reference, a
// self many-to-many, a table keyed by its foreign key, camelCase columns, a table of another schema),
// created in two databases in two orders, its foreign keys named so that the catalog lists them in
// two orders. Both give the documented names; a graph load with the one-to-one gives one or null.
const db = useTestDatabase()

/** Tables first, their foreign keys by default names, in dependency order. */
const IN_ORDER = `
  create schema forum_meta;
  create table board (id bigserial primary key, name text not null);
  create table people (id bigserial primary key, name text not null, "boardId" bigint references board);
  create table thread (id bigserial primary key, board_id bigint not null references board, title text not null);
  create table post (id bigserial primary key, "threadId" bigint not null references thread,
    author_id bigint not null references people, reply_to_id bigint references post, body text not null);
  create table follow (follower_id bigint not null references people, followee_id bigint not null references people,
    primary key (follower_id, followee_id));
  create table thread_stat ("threadId" bigint primary key references thread, "postCount" int not null);
  create table forum_meta.counter (id bigserial primary key, board_id bigint not null references board,
    visits int not null);
`

/** The same tables created the other way round, the keys added after, named to sort the other way. */
const REVERSED = `
  create schema forum_meta;
  create table forum_meta.counter (id bigserial primary key, board_id bigint not null, visits int not null);
  create table thread_stat ("threadId" bigint primary key, "postCount" int not null);
  create table follow (follower_id bigint not null, followee_id bigint not null, primary key (follower_id, followee_id));
  create table post (id bigserial primary key, "threadId" bigint not null, author_id bigint not null,
    reply_to_id bigint, body text not null);
  create table thread (id bigserial primary key, board_id bigint not null, title text not null);
  create table people (id bigserial primary key, name text not null, "boardId" bigint);
  create table board (id bigserial primary key, name text not null);
  alter table forum_meta.counter add constraint a_counter foreign key (board_id) references board;
  alter table thread_stat add constraint a_stat foreign key ("threadId") references thread;
  alter table follow add constraint a_follower foreign key (follower_id) references people;
  alter table follow add constraint b_followee foreign key (followee_id) references people;
  alter table post add constraint a_thread foreign key ("threadId") references thread;
  alter table post add constraint b_reply_to foreign key (reply_to_id) references post;
  alter table post add constraint c_author foreign key (author_id) references people;
  alter table thread add constraint a_board foreign key (board_id) references board;
  alter table people add constraint a_board foreign key ("boardId") references board;
`

const ROWS = `
  insert into board (name) values ('General');
  insert into people (name, "boardId") values ('Ada', 1), ('Grace', 1), ('Alan', null);
  insert into follow values (2, 1), (3, 1), (1, 2); -- Grace and Alan follow Ada, Ada follows Grace
  insert into thread (board_id, title) values (1, 'Hello'), (1, 'Quiet');
  insert into post ("threadId", author_id, reply_to_id, body) values
    (1, 1, null, 'first'), (1, 2, 1, 'reply'), (1, 3, 1, 'another'), (1, 1, 2, 'answer');
  insert into thread_stat values (1, 4);
  insert into forum_meta.counter (board_id, visits) values (1, 10);
`

/** The second database, created here and dropped after the file. */
let reversedUrl: string
const reversedName = `t_${randomBytes(5).toString('hex')}_r`

beforeAll(async () => {
  await db.sql.unsafe(IN_ORDER + ROWS)
  reversedUrl = await createDatabase(db.services.adminUrl, reversedName)
  const sql = postgres(reversedUrl, { max: 1, onnotice: () => {} })
  try {
    await sql.unsafe(REVERSED + ROWS)
  } finally {
    await sql.end({ timeout: 1 })
  }
})

afterAll(async () => {
  await dropDatabase(db.services.adminUrl, reversedName).catch(() => {})
})

const texts = (es: unknown, column: string) => (es as Entity[]).map((e) => String(e[column])).sort()

describe.each(TEST_DRIVERS)('%s', (driver) => {
  const schemas = ['public', 'forum_meta']

  test('the same schema created in two orders gives the documented names', async () => {
    const inOrder = await EntityManager.connect(db.client(driver).client, { schemas })
    const other = openClient(driver, reversedUrl, createRoundTripCounter())
    try {
      const reversed = await EntityManager.connect(other.client, { schemas })
      // The catalog lists the keys in another order: follow's follower key first here.
      expect(reversed.schema.tables.get('follow')?.foreignKeys.map((k) => k.columns[0])).toEqual([
        'follower_id',
        'followee_id',
      ])
      expect(inOrder.schema.tables.get('follow')?.foreignKeys.map((k) => k.columns[0])).toEqual([
        'followee_id',
        'follower_id',
      ])
      expect(describeRelations(inOrder.schema)).toEqual(FORUM_RELATIONS)
      expect(describeRelations(reversed.schema)).toEqual(FORUM_RELATIONS)
    } finally {
      await other.end()
    }
  })

  test('a graph load with the one-to-one gives one entity or null, in one round trip', async () => {
    for (const url of [db.proxiedUrl, reversedUrl]) {
      const c = openClient(driver, url, createRoundTripCounter())
      try {
        const root = await EntityManager.connect(c.client, { schemas })
        await c.query('select 1')
        const em = root.fork()
        c.counter.reset()
        const threads = await em.find(
          'thread',
          {},
          {
            with: {
              thread_stat: true,
              board: { people: true, counters: true },
              posts: {
                reply_to: true,
                posts_by_reply_to: true,
                author: { followers: true, followees: true },
              },
            },
          },
        )
        expect(c.counter.read().roundTrips).toBe(1)
        const hello = threads.find((t) => t['title'] === 'Hello')!
        const quiet = threads.find((t) => t['title'] === 'Quiet')!
        const stat = hello['thread_stat'] as Entity
        expect(Array.isArray(stat)).toBe(false)
        expect(stat['postCount']).toBe(4)
        expect(stat['thread']).toBe(hello)
        expect(quiet['thread_stat']).toBeNull()

        const posts = hello['posts'] as Entity[]
        const first = posts.find((p) => p['body'] === 'first')!
        const reply = posts.find((p) => p['body'] === 'reply')!
        expect(texts(first['posts_by_reply_to'], 'body')).toEqual(['another', 'reply'])
        expect(reply['reply_to']).toBe(first)
        expect(first['reply_to']).toBeNull()
        expect(texts(reply['posts_by_reply_to'], 'body')).toEqual(['answer'])

        const ada = first['author'] as Entity
        expect(ada['name']).toBe('Ada')
        expect(texts(ada['followers'], 'name')).toEqual(['Alan', 'Grace'])
        expect(texts(ada['followees'], 'name')).toEqual(['Grace'])
        const grace = reply['author'] as Entity
        expect(texts(grace['followers'], 'name')).toEqual(['Ada'])
        expect(texts(grace['followees'], 'name')).toEqual(['Ada'])

        const board = hello['board'] as Entity
        expect(texts(board['people'], 'name')).toEqual(['Ada', 'Grace'])
        expect((board['counters'] as Entity[]).map((k) => k['visits'])).toEqual([10])
      } finally {
        await c.end()
      }
    }
  })

  test('the one-to-one is NOT_LOADED until loaded; populate loads it; a new one shows', async () => {
    const root = await EntityManager.connect(db.client(driver).client, { schemas })
    const em = root.fork()
    const [quiet, hello] = await Promise.all([em.load('thread', 2), em.load('thread', 1)])
    expect(() => hello!['thread_stat']).toThrow(expect.objectContaining({ code: 'NOT_LOADED' }))
    await em.populate([quiet!, hello!], { thread_stat: true })
    expect((hello!['thread_stat'] as Entity)['postCount']).toBe(4)
    expect(quiet!['thread_stat']).toBeNull()
    const stat = em.create('thread_stat', { threadId: quiet, postCount: 0 })
    expect(quiet!['thread_stat']).toBe(stat)
    const fresh = em.create('thread', { board_id: 1, title: 'New' })
    expect(fresh['thread_stat']).toBeNull()
  })
})
