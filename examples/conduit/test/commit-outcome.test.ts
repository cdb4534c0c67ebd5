import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterEach, beforeAll, describe, expect, test } from 'vitest'
import { createSchema } from '../src/schema.ts'
import { type Client, createArticle, register, send } from './support/api-client.ts'
import { conduitOn } from './support/conduit-under-test.ts'

// A request whose flush loses its connection after the COMMIT was sent: the flush cannot tell whether
// it committed (COMMIT_OUTCOME_UNKNOWN). Conduit asks the flush log before answering: a 500 for work
// that is stored would have the client retry it (a second registration refused as taken, a comment
// posted twice).
const db = useTestDatabase()

beforeAll(async () => {
  await createSchema((text) => db.sql.unsafe(text))
  // A registration of a user named `slow...`, an article or a comment whose body starts so, sleeps at
  // its COMMIT: the connection is cut meanwhile.
  await db.sql.unsafe(`
    create function slow_commit() returns trigger language plpgsql as $$
    begin
      if coalesce(to_jsonb(new)->>'username', to_jsonb(new)->>'body') like 'slow%' then
        perform pg_sleep(0.5);
      end if;
      return null;
    end $$;
    create constraint trigger slow_commit after insert on app_user
      deferrable initially deferred for each row execute function slow_commit();
    create constraint trigger slow_commit after insert on article
      deferrable initially deferred for each row execute function slow_commit();
    create constraint trigger slow_commit after insert on comment
      deferrable initially deferred for each row execute function slow_commit();
    create function slow_delete() returns trigger language plpgsql as $$
    begin
      if old.body like 'slow%' then perform pg_sleep(0.5); end if;
      return null;
    end $$;
    create constraint trigger slow_delete after delete on article
      deferrable initially deferred for each row execute function slow_delete();
  `)
})

afterEach(() => db.proxy.clearToxics())

/** Waits until a backend sleeps in `pg_sleep` (the COMMIT's trigger): its process id. */
async function sleepingBackend(): Promise<number> {
  for (let i = 0; i < 1000; i++) {
    const [row] =
      await db.sql`select pid from pg_stat_activity where datname = current_database() and wait_event = 'PgSleep'`
    if (row) return row['pid'] as number
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error('no backend slept at the COMMIT')
}

/**
 * Cuts the connection of the backend sleeping at its COMMIT as the COMMIT's answer comes (the server
 * committed), or ends that backend while its COMMIT runs (nothing committed).
 */
async function cutAtCommit(outcome: 'committed' | 'not committed'): Promise<void> {
  const pid = await sleepingBackend()
  if (outcome === 'committed') {
    // The network cuts the connection as the COMMIT's answer comes: the server committed. Cut for as
    // long as that backend is there, so the flush's connection is the one cut.
    await db.proxy.addToxic('reset_peer', { timeout: 0 }, { stream: 'downstream' })
    await gone(pid)
    await db.proxy.clearToxics()
  } else {
    // The backend is ended while its COMMIT runs: nothing committed, and the request flushes again.
    await db.sql`select pg_terminate_backend(${pid})`
  }
}

/** `use` run on a new Conduit (pipeflush, one connection) with a user signed in, then closed. */
async function withConduit(driver: DriverName, use: (ada: Client) => Promise<void>): Promise<void> {
  const conduit = await conduitOn(db, driver, 'pipeflush', 1)
  try {
    await use(await register(conduit.apiUrl, 'ada'))
  } finally {
    await conduit.close()
  }
}

/** Waits until the backend `pid` is gone. */
async function gone(pid: number): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    const [row] = await db.sql`select count(*)::int as n from pg_stat_activity where pid = ${pid}`
    if (row!['n'] === 0) return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error(`backend ${pid} still there`)
}

describe.each(TEST_DRIVERS)('%s: a flush whose outcome is unknown', (driver) => {
  test.each(['committed', 'not committed'] as const)(
    'a registration whose connection was cut after its COMMIT was sent (%s) answers 201 once, and the user can sign in',
    async (outcome) => {
      const conduit = await conduitOn(db, driver, 'pipeflush', 1)
      try {
        await register(conduit.apiUrl, 'warm') // the connection open, the ids fetched
        const username = `slow-${driver.replace('.', '')}-${outcome.replace(' ', '-')}`
        const email = `${username}@example.com`
        const answer = send(conduit.apiUrl, 'POST', '/users', {
          body: { user: { username, email, password: 'secret-1' } },
        })
        await cutAtCommit(outcome)
        const { status, body } = await answer
        expect({ status, username: body?.user?.username }).toEqual({ status: 201, username })
        const stored = await db.sql`select count(*)::int as n from app_user where username = ${username}`
        expect(stored[0]!['n']).toBe(1)
        const login = await send(conduit.apiUrl, 'POST', '/users/login', {
          body: { user: { email, password: 'secret-1' } },
        })
        expect(login.status).toBe(200)
      } finally {
        await conduit.close()
      }
    },
  )

  // An article and a comment have values the server fills in (their timestamps), which a failed flush
  // did not read back: the answer of a write that committed is built from the rows as stored.
  test.each(['committed', 'not committed'] as const)(
    'an article, then a comment on it, each cut after its COMMIT was sent (%s): 201 and 200 once, with the stored id and timestamps',
    (outcome) =>
      withConduit(driver, async (ada) => {
        await createArticle(ada, 'Warm') // the ids of articles fetched
        const title = `Cut ${driver} ${outcome} ${ada.username}`
        const posted = ada.send('POST', '/articles', {
          article: { title, description: 'About a cut', body: 'slow article', tagList: ['cut'] },
        })
        await cutAtCommit(outcome)
        const article = await posted
        expect(article.status).toBe(201)
        const [storedArticle] = await db.sql<{ n: number; slug: string; created_at: Date }[]>`
          select count(*) over ()::int as n, slug, created_at from article where title = ${title}`
        expect(storedArticle?.n).toBe(1)
        expect(article.body.article).toMatchObject({
          slug: storedArticle!.slug,
          createdAt: storedArticle!.created_at.toISOString(),
          tagList: ['cut'],
        })

        const commented = ada.send('POST', `/articles/${storedArticle!.slug}/comments`, {
          comment: { body: `slow comment ${outcome}` },
        })
        await cutAtCommit(outcome)
        const comment = await commented
        expect(comment.status).toBe(200)
        const stored = await db.sql<{ id: number; created_at: Date }[]>`
          select id, created_at from comment where body = ${`slow comment ${outcome}`}
            and article_id = (select id from article where slug = ${storedArticle!.slug})`
        expect(stored).toHaveLength(1)
        expect(comment.body.comment).toMatchObject({
          id: stored[0]!.id,
          createdAt: stored[0]!.created_at.toISOString(),
          body: `slow comment ${outcome}`,
        })
      }),
  )

  // The delete reads the article with a lock, in the transaction its flush commits: not committed,
  // that transaction is gone with its connection, and flushing the unit again fails LOCKS_RELEASED.
  // The request's work runs again instead, reading the article anew.
  test.each(['committed', 'not committed'] as const)(
    'a delete of an article cut after its COMMIT was sent (%s): 204, the article gone',
    (outcome) =>
      withConduit(driver, async (ada) => {
        const title = `Deleted ${driver} ${outcome} ${ada.username}`
        const created = await ada.send('POST', '/articles', {
          article: { title, description: 'To delete', body: 'slowly deleted', tagList: ['gone'] },
        })
        expect(created.status).toBe(201)
        const slug = created.body.article.slug as string
        const deleted = ada.send('DELETE', `/articles/${slug}`)
        await cutAtCommit(outcome)
        expect((await deleted).status).toBe(204)
        const left = await db.sql`select count(*)::int as n from article where slug = ${slug}`
        expect(left[0]!['n']).toBe(0)
      }),
  )
})
