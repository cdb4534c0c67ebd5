import { EntityManager } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// The levels of a `with` tree each select their parent level's rows again: under READ COMMITTED each
// statement reads its own snapshot, and an article published between two of them gave the page's
// article no author (NOT_LOADED) and no tags, the levels read for the newer one. A tree of several
// statements is read in one read-only REPEATABLE READ transaction, in the same round trip.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
create table gs_user (id int primary key, name text not null);
create table gs_article (id int primary key, author_id int not null references gs_user, created_at timestamptz not null);
create table gs_tag (article_id int not null references gs_article, name text not null, primary key (article_id, name));
insert into gs_user values (1, 'ann'), (2, 'bob');
`)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('a page of the newest article: its author and tags, though a newer one commits while it is read', async () => {
    const base = TEST_DRIVERS.indexOf(driver) * 100
    await db.sql.unsafe(`insert into gs_article values (${base + 1}, 1, now() - interval '1 hour');
      insert into gs_tag values (${base + 1}, 't1'), (${base + 1}, 't2')`)
    const { client, counter } = db.client(driver, { max: 2 })
    const root = await EntityManager.connect(client)
    const em = root.fork()
    counter.reset()
    // The roots' select is slow (as under load), so the newer article commits between the statements.
    const reading = em.loadRows(
      'gs_article',
      {
        text: `select id::text as c0, author_id::text as c1, created_at::text as c2 from gs_article
          where (select pg_sleep(0.3)) is not null and id between ${base} and ${base + 99}
          order by created_at desc limit 1`,
        params: [],
      },
      { with: { author: true, gs_tags: true } },
    )
    await new Promise((resolve) => setTimeout(resolve, 150))
    await db.sql.unsafe(`insert into gs_article values (${base + 2}, 2, now())`)
    const [article] = await reading
    expect(article?.['id']).toBe(base + 1)
    expect((article!['author'] as { name: string } | null)?.name).toBe('ann')
    expect((article!['gs_tags'] as { name: string }[]).map((t) => t.name).sort()).toEqual(['t1', 't2'])
    expect(counter.read().roundTrips).toBe(1)
  })
})
