import { isPipeflushError, type PipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { CamelCasePlugin, Kysely, PostgresDialect } from 'kysely'
import { PostgresJSDialect } from 'kysely-postgres-js'
import type pg from 'pg'
import type postgres from 'postgres'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'
import type { Generated, Int8 } from '../fixtures/db.ts'

const db = useTestDatabase()

/** The database as `kysely-codegen --camel-case` types it, for a Kysely with CamelCasePlugin. */
interface CamelDB {
  appUser: {
    userId: Generated<Int8>
    displayName: string
    createdAt: Generated<Date>
    rowVersion: Generated<number>
  }
  blogPost: {
    postId: Generated<Int8>
    authorUserId: Int8
    postTitle: string
    viewCount: Generated<number>
  }
}

beforeAll(async () => {
  await db.sql.unsafe(`
    create table app_user (user_id bigserial primary key, display_name text not null unique,
      created_at timestamptz not null default now(), row_version int not null default 1);
    create table blog_post (post_id bigserial primary key, author_user_id bigint not null references app_user,
      post_title text not null, view_count int not null default 0);
  `)
})

/** The application's Kysely over `client`, with CamelCasePlugin. */
function camelKysely(driver: string, client: unknown): Kysely<CamelDB> {
  const dialect =
    driver === 'pg'
      ? new PostgresDialect({ pool: client as pg.Pool })
      : new PostgresJSDialect({ postgres: client as postgres.Sql })
  return new Kysely<CamelDB>({ dialect, plugins: [new CamelCasePlugin()] })
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  // Bug: an application whose Kysely has CamelCasePlugin (the DB interface in camelCase) was refused
  // outright (INVALID_CONFIG): pipeflush knew the database's names only.
  test("a Kysely with CamelCasePlugin: entities, queries, relations and errors in the application's names", async () => {
    const { client, counter } = db.client(driver, { max: 2 })
    const kysely = camelKysely(driver, client)
    const factory = await createEntityManagerFactory<CamelDB>({
      client,
      db: kysely,
      versionColumn: 'rowVersion',
    })
    expect([...factory.schema.tables.keys()].sort()).toEqual(['appUser', 'blogPost'])

    const { result: user } = await factory.run((em) => {
      const ada = em.create('appUser', { displayName: `ada ${driver}` })
      em.create('blogPost', { authorUserId: ada, postTitle: 'Notes' })
      em.create('blogPost', { authorUserId: ada, postTitle: 'Letters' })
      return ada
    })
    expect([typeof user.userId, user.createdAt instanceof Date, user.rowVersion]).toEqual(['string', true, 1])

    const em = factory.em()
    counter.reset()
    const [posts, counted] = await Promise.all([
      em.load(
        em.db.selectFrom('blogPost').selectAll().where('authorUserId', '=', user.userId).orderBy('postTitle'),
        { with: { authorUser: true } } as never,
      ),
      em.select(
        em.db
          .selectFrom('appUser')
          .select(['userId', 'displayName'])
          .where('displayName', '=', `ada ${driver}`),
      ),
    ])
    expect(counter.read().roundTrips).toBe(1) // both reads, and the relation, in one round trip
    expect(posts.map((p) => p.postTitle)).toEqual(['Letters', 'Notes'])
    expect(posts[0]!.viewCount).toBe(0)
    expect(em.related(posts[0]!, 'authorUser' as never)).toBe(await em.load('appUser', user.userId))
    expect(counted).toEqual([{ userId: user.userId, displayName: `ada ${driver}` }])
    const [found] = await em.find('appUser', { displayName: `ada ${driver}` })
    found!.displayName = `ada renamed ${driver}`
    posts[0]!.postTitle = 'Letters, renamed'
    await em.flush()
    expect(found!.rowVersion).toBe(2)
    const stored = await kysely
      .selectFrom('appUser')
      .select(['displayName', 'rowVersion'])
      .where('userId', '=', user.userId)
      .execute()
    expect(stored).toEqual([{ displayName: `ada renamed ${driver}`, rowVersion: 2 }])

    // An unknown table as the application's query names it, not as the plugin compiled it.
    const unknown = await em
      .load(em.db.selectFrom('blogPostz' as never).selectAll() as never)
      .catch((e: unknown) => e)
    expect(unknown).toMatchObject({ code: 'UNKNOWN_TABLE', table: 'blogPostz' })

    const failing = factory.em()
    failing.create('appUser', { displayName: `ada renamed ${driver}` })
    const error = await failing.flush().catch((e: unknown) => e)
    expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION')).toBe(true)
    expect([(error as PipeflushError).table, (error as PipeflushError).column]).toEqual([
      'appUser',
      'displayName',
    ])
  })
})
