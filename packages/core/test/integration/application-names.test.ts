import {
  EntityManager,
  isPipeflushError,
  type PipeflushError,
  readSchema,
  relationsOf,
} from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

const db = useTestDatabase()

/** snake_case to camelCase, as Kysely's CamelCasePlugin reads a result's names. */
const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())

beforeAll(async () => {
  await db.sql.unsafe(`
    create schema side_line;
    create table app_user (user_id bigserial primary key, display_name text not null unique,
      created_at timestamptz not null default now(), row_version int not null default 1);
    create table blog_post (post_id bigserial primary key, author_user_id bigint not null references app_user,
      post_title text not null, view_count int not null default 0);
    create table post_tag (post_id bigint references blog_post on delete cascade, tag_name text,
      primary key (post_id, tag_name));
    create schema clash_tables;
    create table clash_tables.post_tags (id int primary key);
    create table clash_tables."postTags" (id int primary key);
    create schema clash_columns;
    create table clash_columns.page (id int primary key, page_url text, "pageUrl" text);
    create table side_line.side_note (note_id bigserial primary key, about_post_id bigint references blog_post on delete cascade, note_text text not null);
  `)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  // An application whose names are not the database's (Kysely's CamelCasePlugin: `blogPost.postTitle`
  // for `blog_post.post_title`) keys tables and entities by its own names; SQL keeps the database's.
  test('names: tables, columns and relations as the application names them; written and read back as the database names them', async () => {
    const { client, counter } = db.client(driver, { max: 2 })
    const root = await EntityManager.connect(client, {
      names: camel,
      versionColumn: 'rowVersion',
      schemas: ['public', 'side_line'],
    })
    expect([...root.schema.tables.keys()].sort()).toEqual([
      'appUser',
      'blogPost',
      'postTag',
      'sideLine.sideNote',
    ])
    expect([...relationsOf(root.schema, 'appUser').keys()]).toEqual(['blogPosts'])
    expect([...relationsOf(root.schema, 'blogPost').keys()].sort()).toEqual([
      'authorUser',
      'postTags',
      'sideNotes',
    ])

    const em = root.fork()
    const user = em.create('appUser', { displayName: `ada ${driver}` })
    const post = em.create('blogPost', { authorUserId: user, postTitle: 'Notes' })
    em.create('postTag', { postId: post, tagName: 'first' })
    em.create('sideLine.sideNote', { aboutPostId: post, noteText: 'aside' })
    counter.reset()
    const report = await em.flush()
    expect([report.inserted, report.roundTrips, counter.read().roundTrips]).toEqual([4, 1, 1])
    // What the server filled is read back under the application's names.
    expect(user['createdAt']).toBeInstanceOf(Date)
    expect([user['rowVersion'], post['viewCount']]).toEqual([1, 0])
    const [stored] =
      await db.sql`select p.post_title, u.display_name from blog_post p join app_user u on u.user_id = p.author_user_id where p.post_id = ${String(post['postId'])}`
    expect(stored).toEqual({ post_title: 'Notes', display_name: `ada ${driver}` })

    const other = root.fork()
    const loaded = await other.load('appUser', user['userId'], { with: { blogPosts: { postTags: true } } })
    const [found] = await other.find(
      'blogPost',
      { authorUserId: user['userId'] },
      { orderBy: { postTitle: 'asc' } },
    )
    expect(found!['postTitle']).toBe('Notes')
    found!['postTitle'] = 'Renamed'
    loaded['displayName'] = `ada renamed ${driver}`
    other.upsert(
      'postTag',
      { postId: found!['postId'], tagName: 'first' },
      { conflict: ['postId', 'tagName'], update: [] },
    )
    expect((await other.flush()).roundTrips).toBe(1)
    expect(loaded['rowVersion']).toBe(2)
    const [row] =
      await db.sql`select display_name, row_version from app_user where user_id = ${String(user['userId'])}`
    expect(row).toEqual({ display_name: `ada renamed ${driver}`, row_version: 2 })

    // Errors name the table and column as the application does, and the rows the server named.
    const failing = root.fork()
    const fine = failing.create('appUser', { displayName: `fine ${driver}` })
    const taken = failing.create('appUser', { displayName: `ada renamed ${driver}` })
    failing.create('blogPost', { authorUserId: fine, postTitle: 'beside' })
    const error = await failing.flush().catch((e: unknown) => e)
    expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION')).toBe(true)
    const pe = error as PipeflushError
    expect([pe.message.slice(0, 17), pe.table, pe.column, pe.keys]).toEqual([
      'insert on appUser',
      'appUser',
      'displayName',
      [taken['userId']],
    ])
    taken['displayName'] = `grace ${driver}`
    expect((await failing.flush()).inserted).toBe(3)

    const removing = root.fork()
    removing.remove(await removing.load('blogPost', post['postId']))
    await removing.flush()
    const [left] =
      await db.sql`select count(*)::int as n from post_tag where post_id = ${String(post['postId'])}`
    expect(left).toEqual({ n: 0 })
  })

  test('names: a mapping that is not a function, gives no name, throws, or comes with a schema given, and a versionColumn naming nothing, are INVALID_CONFIG', async () => {
    const { client } = db.client(driver, { max: 1 })
    const refused = async (options: object) => {
      const e = await EntityManager.connect(client, options).catch((x: unknown) => x)
      expect(isPipeflushError(e, 'INVALID_CONFIG')).toBe(true)
      return (e as Error).message
    }
    expect(await refused({ names: 'camel' })).toMatch('names must be a function')
    expect(await refused({ names: () => '' })).toMatch("names gave '' for")
    expect(
      await refused({
        names: () => {
          throw new Error('no mapping')
        },
      }),
    ).toMatch('names threw for "app_user": no mapping.')
    // Bug (outside probe): a versionColumn naming no table, or a column by its name in the database,
    // was taken without a word: optimistic locking off, concurrent updates overwriting each other.
    expect(await refused({ names: camel, versionColumn: { app_user: 'rowVersion' } })).toMatch(
      `versionColumn names "app_user", which is not a table of the schema (the database's "app_user" is keyed "appUser" here)`,
    )
    expect(await refused({ versionColumn: { app_usr: 'row_version' } })).toMatch(
      'versionColumn names "app_usr", which is not a table of the schema:',
    )
    expect(await refused({ names: camel, versionColumn: 'row_version' })).toMatch(
      `versionColumn "row_version" is the database's name of the column named "rowVersion" here`,
    )
    // Two tables, or two columns, the mapping gives one name: told as such, not as two schemas.
    expect(await refused({ names: camel, schemas: ['clash_tables'] })).toMatch(
      /both "clash_tables"\."post(_t|T)ags" and "clash_tables"\."post(_t|T)ags" have this key under the names option/,
    )
    expect(await refused({ names: camel, schemas: ['clash_columns'] })).toMatch(
      'columns "page_url" and "pageUrl" of the database are both named "pageUrl" here',
    )
    const schema = await readSchema(client, { names: camel })
    expect(schema.tables.has('blogPost')).toBe(true)
    expect(await refused({ schema, names: camel })).toMatch('give readSchema its `names`')
  })
})
