import { type Entity, EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// What a list endpoint reads, in one round trip: roots chosen by the application's own select (its
// filter, order, limit and offset) or by find's options, their graph with relations filtered
// (`$where`), ordered (`$orderBy`) and limited per parent (`$limit`), counts per root (`$count`), and
// untracked rows (a total) from a select started in the same tick. Round trips counted at the socket.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table app_user (id bigserial primary key, username text not null unique);
    create table follow (follower_id bigint not null references app_user, followee_id bigint not null references app_user,
      primary key (follower_id, followee_id));
    create table article (id bigserial primary key, author_id bigint not null references app_user, slug text not null unique,
      created_at timestamptz not null);
    create table tag (id bigserial primary key, name text not null unique);
    create table article_tag (article_id bigint not null references article, tag_id bigint not null references tag,
      primary key (article_id, tag_id));
    create table favorite (user_id bigint not null references app_user, article_id bigint not null references article,
      primary key (user_id, article_id));
    create table comment (id bigserial primary key, article_id bigint not null references article,
      author_id bigint not null references app_user, body text not null, created_at timestamptz not null);
    create table article_stat (article_id bigint primary key references article, views int not null);
    insert into app_user (username) values ('ada'), ('grace'), ('alan'), ('edsger');
    insert into follow values (1, 2), (1, 3), (4, 2);
    insert into article (author_id, slug, created_at) values
      (2, 'g1', '2024-01-01'), (2, 'g2', '2024-01-03'), (3, 'a1', '2024-01-02'), (4, 'e1', '2024-01-04'), (3, 'a2', '2024-01-05');
    insert into tag (name) values ('math'), ('code'), ('history');
    insert into article_tag values (1, 1), (1, 2), (2, 2), (3, 3), (5, 2);
    insert into favorite values (1, 1), (2, 1), (3, 1), (1, 3), (4, 5);
    insert into comment (article_id, author_id, body, created_at) values
      (1, 1, 'first', '2024-02-01'), (1, 3, 'third', '2024-02-03'), (1, 4, 'second', '2024-02-02'), (3, 2, 'only', '2024-02-04');
    insert into article_stat values (1, 10), (2, 20);
  `)
})

const slugs = (es: readonly Entity[]) => es.map((e) => e['slug'])
const ME = 1 // ada follows grace and alan, and favorited g1 and a1

describe.each(TEST_DRIVERS)('%s', (driver) => {
  async function setup() {
    const c = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(c.client)
    await c.query('select 1') // a warm connection: the reads below count their own round trips
    return { ...c, root }
  }

  // The docs' "did I favorite it?": the reader given as its entity, as find's where takes it.
  test('a $where value may be an entity: it stands for its key', async () => {
    const { root, counter } = await setup()
    const em = root.fork()
    const me = await em.load('app_user', ME)
    counter.reset()
    const articles = await em.find(
      'article',
      { slug: ['g1', 'g2'] },
      { orderBy: { slug: 'asc' }, with: { favorites: { $where: { user_id: me } } } },
    )
    expect(articles.map((a) => (a['favorites'] as Entity[]).map((f) => f['user_id']))).toEqual([
      [String(ME)],
      [],
    ])
    expect(counter.read().roundTrips).toBe(1)
  })

  test("a feed: roots from the application's select (filter, newest first, limit, offset), their graph, flags relative to the reader, counts and a total: one round trip", async () => {
    const { root, counter } = await setup()
    const em = root.fork()
    const columns = ['id', 'author_id', 'slug', 'created_at']
      .map((c, i) => `a."${c}"::text as c${i}`)
      .join(', ')
    const followed = 'a.author_id in (select followee_id from follow where follower_id = $1::int8)'
    counter.reset()
    const [feed, [total]] = await Promise.all([
      em.loadRows(
        'article',
        {
          text: `select ${columns} from article a where ${followed} order by a.created_at desc limit 2 offset 1`,
          params: [String(ME)],
        },
        {
          with: {
            author: { followers: { $where: { id: ME } } },
            tags: { $orderBy: { name: 'asc' } },
            favorites: { $where: { user_id: ME } },
            $count: ['favorites', 'comments'],
          },
        },
      ),
      em.select({ text: `select count(*)::int as n from article a where ${followed}`, params: [String(ME)] }),
    ])
    expect(counter.read().roundTrips).toBe(1)
    // Followed authors' articles newest first: a2, g2, a1, g1; offset 1, limit 2.
    expect(slugs(feed)).toEqual(['g2', 'a1'])
    expect(total).toEqual({ n: 4 })
    const [g2, a1] = feed as [Entity, Entity]
    expect((g2['tags'] as Entity[]).map((t) => t['name'])).toEqual(['code'])
    expect((a1['tags'] as Entity[]).map((t) => t['name'])).toEqual(['history'])
    // favorited: the reader's favorite loaded or not; following: the reader among the author's followers.
    expect((g2['favorites'] as Entity[]).length).toBe(0)
    expect((a1['favorites'] as Entity[]).length).toBe(1)
    expect(((g2['author'] as Entity)['followers'] as Entity[]).map((u) => u['username'])).toEqual(['ada'])
    expect([em.countOf(g2, 'favorites'), em.countOf(a1, 'favorites')]).toEqual([0, 1])
    expect([em.countOf(g2, 'comments'), em.countOf(a1, 'comments')]).toEqual([0, 1])
    expect(typeof em.countOf(a1, 'favorites')).toBe('number')
    // Counted, not read: the comments were not loaded.
    expect(() => a1['comments']).toThrow(expect.objectContaining({ code: 'NOT_LOADED' }))
    expect(() => em.countOf(a1, 'article_tags')).toThrow(expect.objectContaining({ code: 'NOT_LOADED' }))
  })

  test("find's order, limit and offset choose the roots, and a relation's order and limit per parent are what navigation gives", async () => {
    const { root, counter } = await setup()
    const em = root.fork()
    counter.reset()
    const articles = await em.find(
      'article',
      { author_id: [2, 3] },
      {
        orderBy: { created_at: 'desc' },
        limit: 3,
        with: {
          comments: { $orderBy: { created_at: 'desc' }, author: true },
          app_users: { $orderBy: { username: 'desc' } },
        },
      },
    )
    expect(counter.read().roundTrips).toBe(1)
    expect(slugs(articles)).toEqual(['a2', 'g2', 'a1'])
    const [g1] = await em.find(
      'article',
      { slug: 'g1' },
      { with: { comments: { $orderBy: { created_at: 'desc' } } } },
    )
    expect((g1!['comments'] as Entity[]).map((c) => c['body'])).toEqual(['third', 'second', 'first'])
    const [limited] = await em.find(
      'article',
      { slug: 'g1' },
      {
        with: {
          comments: { $orderBy: { created_at: 'asc' }, $limit: 2 },
          app_users: { $orderBy: { username: 'asc' } },
        },
      },
    )
    // The same entities, now ordered as this read asked; two of the three comments read this time, the
    // third still held by the unit of work (after the ordered ones).
    expect(limited).toBe(g1)
    expect((g1!['comments'] as Entity[]).map((c) => c['body'])).toEqual(['first', 'second', 'third'])
    expect((g1!['app_users'] as Entity[]).map((u) => u['username'])).toEqual(['ada', 'alan', 'grace'])
    const fresh = root.fork()
    const [only] = await fresh.find(
      'article',
      { slug: 'g1' },
      { with: { comments: { $orderBy: { created_at: 'asc' }, $limit: 2 } } },
    )
    expect((only!['comments'] as Entity[]).map((c) => c['body'])).toEqual(['first', 'second'])
  })

  test('a many-to-many filtered on its targets reads only the links to them', async () => {
    const { root } = await setup()
    const em = root.fork()
    const [g1] = await em.find(
      'article',
      { slug: 'g1' },
      { with: { tags: { $where: { name: ['code', 'history'] } } } },
    )
    expect((g1!['tags'] as Entity[]).map((t) => t['name'])).toEqual(['code'])
    expect((await em.find('article_tag', { article_id: g1!['id'] })).length).toBe(2) // a find reads the rest
  })

  // Options built from optional request filters (`$where: { ...filters }`) may hold no column.
  test('an empty $where filters nothing, alone or beside $orderBy and $limit, in one round trip', async () => {
    const { root, counter } = await setup()
    const bodies = async (comments: Record<string, unknown>) => {
      const em = root.fork()
      counter.reset()
      const [g1] = await em.find('article', { slug: 'g1' }, { with: { comments } as never })
      expect(counter.read().roundTrips).toBe(1)
      return (g1!['comments'] as Entity[]).map((c) => c['body'])
    }
    expect(await bodies({ $where: {} })).toEqual(await bodies({}))
    expect(await bodies({ $where: {}, $orderBy: { created_at: 'desc' }, $limit: 2 })).toEqual([
      'third',
      'second',
    ])
  })

  // The link rows a many-to-many reads (in key order) are not the rows of the link table's
  // one-to-many beside it when that one asks another order: the order of the keys of the tree changes
  // nothing, and the whole tree is still one round trip.
  test("a link table's one-to-many beside a many-to-many through it keeps its $orderBy, written before or after it", async () => {
    const { root, counter } = await setup()
    const read = async (tree: Record<string, unknown>, links: string, by: string, name: string) => {
      const em = root.fork()
      counter.reset()
      const [g1] = await em.find('article', { slug: 'g1' }, { with: tree as never })
      expect(counter.read().roundTrips).toBe(1)
      const related = (g1![name] as Entity[]).map((e) => String(e['name'] ?? e['username'])).sort()
      return { related, links: (g1![links] as Entity[]).map((l) => l[by]) }
    }
    const tagsDesc = { $orderBy: { tag_id: 'desc' } }
    const tags = { related: ['code', 'math'], links: ['2', '1'] }
    expect(await read({ tags: true, article_tags: tagsDesc }, 'article_tags', 'tag_id', 'tags')).toEqual(tags)
    expect(await read({ article_tags: tagsDesc, tags: true }, 'article_tags', 'tag_id', 'tags')).toEqual(tags)
    const usersDesc = { $orderBy: { user_id: 'desc' } }
    const users = { related: ['ada', 'alan', 'grace'], links: ['3', '2', '1'] }
    expect(
      await read({ app_users: true, favorites: usersDesc }, 'favorites', 'user_id', 'app_users'),
    ).toEqual(users)
    expect(
      await read({ favorites: usersDesc, app_users: true }, 'favorites', 'user_id', 'app_users'),
    ).toEqual(users)
    // Read further through the ordered rows, and without an order (the many-to-many's rows, reused).
    const em = root.fork()
    const [g1] = await em.find(
      'article',
      { slug: 'g1' },
      { with: { tags: true, article_tags: { ...tagsDesc, tag: true } } },
    )
    expect((g1!['article_tags'] as Entity[]).map((l) => (l['tag'] as Entity)['name'])).toEqual([
      'code',
      'math',
    ])
    const [again] = await root
      .fork()
      .find('article', { slug: 'g1' }, { with: { tags: true, article_tags: true } })
    expect((again!['article_tags'] as Entity[]).map((l) => l['tag_id']).sort()).toEqual(['1', '2'])
  })

  // Docs, "Reading a relation": a many-to-one or one-to-one gives the entity or null; only one that
  // was not loaded is NOT_LOADED.
  test('a many-to-one or one-to-one loaded with a $where its row fails reads as null; one not loaded is NOT_LOADED', async () => {
    const { root, counter } = await setup()
    const em = root.fork()
    counter.reset()
    const [first, only] = await Promise.all([
      em.find('comment', { body: 'first' }, { with: { author: { $where: { username: 'nobody' } } } }),
      em.find('comment', { body: 'only' }, { with: { author: { $where: { username: 'grace' } } } }),
    ])
    expect(counter.read().roundTrips).toBe(1)
    expect(first![0]!['author']).toBeNull()
    expect((only![0]!['author'] as Entity)['username']).toBe('grace')
    // Its key assigned another row, one no read loaded: that one is not loaded.
    first![0]!['author_id'] = '4'
    expect(() => first![0]!['author']).toThrow(expect.objectContaining({ code: 'NOT_LOADED' }))
    first![0]!['author_id'] = '1'
    expect(first![0]!['author']).toBeNull()
    // Not loaded at all: NOT_LOADED; loaded without $where: its row.
    const other = root.fork()
    const [second] = await other.find('comment', { body: 'second' })
    expect(() => second!['author']).toThrow(expect.objectContaining({ code: 'NOT_LOADED' }))
    const [third] = await other.find('comment', { body: 'third' }, { with: { author: true } })
    expect((third!['author'] as Entity)['username']).toBe('alan')
    // Cleared, the unit of work holds neither: NOT_LOADED, as before any read (never a null).
    await em.clear()
    expect(() => first![0]!['author']).toThrow(expect.objectContaining({ code: 'NOT_LOADED' }))
    await other.clear()
    expect(() => third!['author']).toThrow(expect.objectContaining({ code: 'NOT_LOADED' }))
    // A one-to-one, both ways, and through a graph: the same.
    const stats = root.fork()
    const [g1] = await stats.find(
      'article',
      { slug: 'g1' },
      {
        with: {
          article_stat: { $where: { views: 99 } },
          comments: { author: { $where: { username: 'ada' } } },
        },
      },
    )
    expect(g1!['article_stat']).toBeNull()
    const byBody = Object.fromEntries(
      (g1!['comments'] as Entity[]).map((c) => [
        c['body'],
        (c['author'] as Entity | null)?.['username'] ?? null,
      ]),
    )
    expect(byBody).toEqual({ first: 'ada', second: null, third: null })
    const [stat] = await stats.find(
      'article_stat',
      { article_id: '2' },
      { with: { article: { $where: { slug: 'x' } } } },
    )
    expect(stat!['article']).toBeNull()
    const [unread] = await root.fork().find('article_stat', { article_id: '1' })
    expect(() => unread!['article']).toThrow(expect.objectContaining({ code: 'NOT_LOADED' }))
  })

  test('bad options fail before anything is sent', async () => {
    const { root, counter } = await setup()
    const em = root.fork()
    counter.reset()
    const bad: unknown[] = [
      { tags: { $orderBy: { nope: 'asc' } } },
      { tags: { $orderBy: { name: 'up' } } },
      { tags: { $limit: 2 } },
      { author: { $limit: 1 } },
      { $count: ['author'] },
      { $count: ['nope'] },
      { $where: { id: 1 } },
      { tags: { $what: true } },
      { comments: { $limit: -1 } },
    ]
    for (const tree of bad) {
      const e = await em.find('article', {}, { with: tree as never }).catch((error: unknown) => error)
      expect(
        isPipeflushError(e, 'INVALID_VALUE') || isPipeflushError(e, 'UNKNOWN_RELATION'),
        JSON.stringify(tree),
      ).toBe(true)
    }
    for (const options of [
      { limit: 1.5 },
      { offset: -1 },
      { orderBy: { nope: 'asc' } },
      { orderBy: { slug: 'sideways' } },
    ]) {
      const e = await em.find('article', {}, options as never).catch((error: unknown) => error)
      expect(isPipeflushError(e), JSON.stringify(options)).toBe(true)
    }
    expect(counter.read().roundTrips).toBe(0)
  })
})
