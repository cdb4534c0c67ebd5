import { defineSchema, type Entity, EntityManager, relationsOf } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// Columns the API calls otherwise than the database (defineSchema's column `name`: `authorId` for
// `author_id`), and a table keyed otherwise than named (`users` for `app_user`): a list read's options
// (`orderBy`, `$where`, `$orderBy`, `$limit`, `$count`) take the API's names, every statement the
// database's. Rows come back, and counts are read, in one round trip counted at the socket.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table app_user (user_id bigserial primary key, user_name text not null unique);
    create table article (article_id bigserial primary key, author_id bigint not null references app_user,
      title text not null, created_at timestamptz not null);
    create table comment (comment_id bigserial primary key, article_id bigint not null references article,
      author_id bigint not null references app_user, body text not null, created_at timestamptz not null);
    create table tag (tag_id bigserial primary key, tag_name text not null unique);
    create table article_tag (article_id bigint not null references article, tag_id bigint not null references tag,
      primary key (article_id, tag_id));
    insert into app_user (user_name) values ('ada'), ('grace'), ('alan');
    insert into article (author_id, title, created_at) values
      (1, 'a1', '2024-01-01'), (2, 'g1', '2024-01-03'), (1, 'a2', '2024-01-02'), (3, 't1', '2024-01-04');
    insert into comment (article_id, author_id, body, created_at) values
      (1, 2, 'first', '2024-02-01'), (1, 3, 'third', '2024-02-03'), (1, 2, 'second', '2024-02-02'),
      (3, 3, 'only', '2024-02-04');
    insert into tag (tag_name) values ('math'), ('code');
    insert into article_tag values (1, 1), (1, 2), (2, 2), (3, 1);
  `)
})

const named = (name: string) => ({ type: 'int8' as const, name })
const schema = defineSchema({
  users: {
    name: 'app_user',
    columns: {
      userId: { ...named('user_id'), identity: 'by default' },
      userName: { type: 'text', name: 'user_name' },
    },
    primaryKey: ['userId'],
    uniques: [['userName']],
  },
  article: {
    columns: {
      articleId: { ...named('article_id'), identity: 'by default' },
      authorId: named('author_id'),
      title: 'text',
      createdAt: { type: 'timestamptz', name: 'created_at' },
    },
    primaryKey: ['articleId'],
    foreignKeys: [{ columns: ['authorId'], references: 'users' }],
  },
  comment: {
    columns: {
      commentId: { ...named('comment_id'), identity: 'by default' },
      articleId: named('article_id'),
      authorId: named('author_id'),
      body: 'text',
      createdAt: { type: 'timestamptz', name: 'created_at' },
    },
    primaryKey: ['commentId'],
    foreignKeys: [
      { columns: ['articleId'], references: 'article' },
      { columns: ['authorId'], references: 'users' },
    ],
  },
  tag: {
    columns: {
      tagId: { ...named('tag_id'), identity: 'by default' },
      tagName: { type: 'text', name: 'tag_name' },
    },
    primaryKey: ['tagId'],
  },
  article_tag: {
    columns: { articleId: named('article_id'), tagId: named('tag_id') },
    primaryKey: ['articleId', 'tagId'],
    foreignKeys: [
      { columns: ['articleId'], references: 'article' },
      { columns: ['tagId'], references: 'tag' },
    ],
  },
})

const titles = (es: readonly Entity[]) => es.map((e) => e['title'])
const bodies = (es: unknown) => (es as Entity[]).map((e) => e['body'])

describe.each(TEST_DRIVERS)('%s', (driver) => {
  async function setup() {
    const c = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(c.client, { schema })
    await c.query('select 1') // a warm connection: the reads below count their own round trips
    return { ...c, root }
  }

  test('relations are derived from the keys the API names', () => {
    expect([...relationsOf(schema, 'article').keys()]).toEqual(['article_tags', 'author', 'comments', 'tags'])
    expect(relationsOf(schema, 'article').get('author')).toMatchObject({
      target: 'users',
      columns: ['authorId'],
    })
  })

  test("find's orderBy, limit, offset and a graph filtered, ordered, limited and counted by the API's names: one round trip", async () => {
    const { root, counter } = await setup()
    const em = root.fork()
    counter.reset()
    const found = await em.find(
      'article',
      { authorId: [1, 2] },
      {
        orderBy: { createdAt: 'desc' },
        limit: 2,
        offset: 1,
        with: {
          author: true,
          comments: { $where: { authorId: 2 }, $orderBy: { createdAt: 'desc' }, $limit: 1 },
          tags: { $where: { tagName: 'math' }, $orderBy: { tagName: 'asc' } },
          $count: ['comments', 'tags'],
        },
      },
    )
    expect(counter.read().roundTrips).toBe(1)
    // ada's and grace's articles newest first: g1, a2, a1; offset 1, limit 2.
    expect(titles(found)).toEqual(['a2', 'a1'])
    const [a2, a1] = found as [Entity, Entity]
    expect((a1['author'] as Entity)['userName']).toBe('ada')
    expect(bodies(a1['comments'])).toEqual(['second']) // grace's newest
    expect(bodies(a2['comments'])).toEqual([])
    expect((a1['tags'] as Entity[]).map((t) => t['tagName'])).toEqual(['math'])
    expect([em.countOf(a1, 'comments'), em.countOf(a1, 'tags')]).toEqual([3, 2])
    expect([em.countOf(a2, 'comments'), em.countOf(a2, 'tags')]).toEqual([1, 1])
  })

  test('a loadRows root selected by database names, its graph and a total beside it: one round trip', async () => {
    const { root, counter } = await setup()
    const em = root.fork()
    const columns = ['article_id', 'author_id', 'title', 'created_at'].map((c, i) => `a.${c}::text as c${i}`)
    counter.reset()
    const [page, [total]] = await Promise.all([
      em.loadRows(
        'article',
        {
          text: `select ${columns.join(', ')} from article a where a.author_id = $1::int8 order by a.created_at limit 1`,
          params: ['1'],
        },
        { with: { comments: { $orderBy: { createdAt: 'asc' }, author: true }, $count: ['comments'] } },
      ),
      em.select({ text: 'select count(*)::int as n from article where author_id = $1::int8', params: ['1'] }),
    ])
    expect(counter.read().roundTrips).toBe(1)
    expect(total).toEqual({ n: 2 })
    const [a1] = page as [Entity]
    expect(a1).toMatchObject({ articleId: '1', authorId: '1', title: 'a1' })
    expect(bodies(a1['comments'])).toEqual(['first', 'second', 'third'])
    expect((a1['comments'] as Entity[]).map((c) => (c['author'] as Entity)['userName'])).toEqual([
      'grace',
      'grace',
      'alan',
    ])
    expect(em.countOf(a1, 'comments')).toBe(3)
    // Written under the database's names too (on an article no read here selects, put back after).
    const [t1] = await em.find('article', { title: 't1' }, { with: { comments: true } })
    t1!['title'] = 't1, revised'
    em.create('comment', {
      articleId: t1,
      authorId: a1['authorId'],
      body: 'new',
      createdAt: new Date('2024-02-05'),
    })
    await em.flush()
    expect((t1!['comments'] as Entity[]).map((c) => c['body'])).toEqual(['new'])
    const [row] =
      await db.sql`select title, (select count(*)::int from comment where article_id = 4) as n from article where article_id = 4`
    expect(row).toEqual({ title: 't1, revised', n: 1 })
    await db.sql`update article set title = 't1' where article_id = 4; `
    await db.sql`delete from comment where article_id = 4`
  })
})
