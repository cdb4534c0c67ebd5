import { isPipeflushError, type PipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import {
  bigint,
  bigserial,
  customType,
  integer,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
} from 'drizzle-orm/pg-core'
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js'
import type pg from 'pg'
import type postgres from 'postgres'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'
import { drizzleOn } from '../fixtures/databases.ts'
import { DDL } from '../fixtures/schema.ts'

const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(DDL)
  await db.sql.unsafe(`
    create domain cd_posint as int check (value > 0);
    create table cd_dom (id serial primary key, age cd_posint, ages cd_posint[]);
  `)
})

/** Definitions of `book` that drifted from the database, and of a table it does not have. */
const drifted = {
  books: pgTable('book', {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    authorId: integer('author_id'), // not null in the database
    title: integer('title').notNull(), // text in the database
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    subtitle: text('subtitle'), // no such column
  }),
  ghosts: pgTable('ghost', { id: serial('id').primaryKey() }),
}

describe.each(TEST_DRIVERS)('%s: checkDatabase', (driver) => {
  test('definitions that agree with the catalog start; the catalog is read only when asked', async () => {
    const { db: drizzle, counter } = drizzleOn(db, driver, 1)
    await createEntityManagerFactory({ db: drizzle }) // opens the connection
    counter.reset()
    await createEntityManagerFactory({ db: drizzle })
    const without = counter.read().roundTrips // connect's session checks only
    counter.reset()
    await createEntityManagerFactory({ db: drizzle, checkDatabase: true })
    expect(counter.read().roundTrips).toBeGreaterThan(without)
  })

  test('definitions that disagree are SCHEMA_MISMATCH at start, naming tables and columns', async () => {
    const { client } = db.client(driver, { max: 1 })
    const database =
      driver === 'postgres.js'
        ? drizzlePostgresJs(client as postgres.Sql, { schema: drifted })
        : drizzlePg(client as pg.Pool, { schema: drifted })
    let error: PipeflushError | undefined
    try {
      await createEntityManagerFactory({ db: database, checkDatabase: true })
    } catch (e) {
      if (isPipeflushError(e)) error = e
      else throw e
    }
    expect(error).toMatchObject({ code: 'SCHEMA_MISMATCH', table: 'books', column: 'authorId' })
    expect(error?.message).toContain(
      'books (public.book): column authorId ("author_id") is nullable in the definitions, not null in the database',
    )
    expect(error?.message).toContain('column title is int4 in the definitions, text in the database')
    expect(error?.message).toContain('column subtitle: no such column in the database')
    expect(error?.message).toContain('ghosts (public.ghost): no such table in the database')
    // Without the check the factory starts: the definitions are taken as they are.
    await expect(createEntityManagerFactory({ db: database })).resolves.toBeDefined()
  })

  test('a composite primary key whose columns the definitions leave nullable agrees with the catalog', async () => {
    // PostgreSQL makes every primary-key column NOT NULL; Drizzle marks only a single column's
    // `.primaryKey()` so, not the columns of `primaryKey({ columns })`.
    const linked = {
      bookTags: pgTable(
        'book_tag',
        { bookId: bigint('book_id', { mode: 'number' }), tagId: integer('tag_id') },
        (t) => [primaryKey({ columns: [t.bookId, t.tagId] })],
      ),
    }
    const { client, counter } = db.client(driver, { max: 1 })
    const database =
      driver === 'postgres.js'
        ? drizzlePostgresJs(client as postgres.Sql, { schema: linked })
        : drizzlePg(client as pg.Pool, { schema: linked })
    const factory = await createEntityManagerFactory({ db: database, checkDatabase: true })
    // A key part is still required before anything is sent.
    const em = factory.fork()
    em.create(linked.bookTags, { bookId: 1 })
    counter.reset()
    await expect(em.flush()).rejects.toMatchObject({ code: 'INVALID_VALUE', column: 'tagId' })
    expect(counter.read().roundTrips).toBe(0)
  })

  // A domain's column declared by the domain's name (Drizzle has no domain builder): the check
  // compared it with the type the domain is over and said SCHEMA_MISMATCH (found by an outside probe).
  test("a domain's column declared by the domain's name or by the type it is over agrees with the catalog", async () => {
    const posint = customType<{ data: number; driverData: string }>({
      dataType: () => 'cd_posint',
      toDriver: String,
      fromDriver: Number,
    })
    const byName = pgTable('cd_dom', {
      id: serial('id').primaryKey(),
      age: posint('age'),
      ages: posint('ages').array(),
    })
    const byBase = pgTable('cd_dom', {
      id: serial('id').primaryKey(),
      age: integer('age'),
      ages: integer('ages').array(),
    })
    for (const table of [byName, byBase]) {
      const { client } = db.client(driver, { max: 1 })
      const database =
        driver === 'postgres.js'
          ? drizzlePostgresJs(client as postgres.Sql, { schema: { table } })
          : drizzlePg(client as pg.Pool, { schema: { table } })
      const factory = await createEntityManagerFactory({ db: database, checkDatabase: true })
      const em = factory.fork()
      const row = em.create(table, { age: 21, ages: [1, 2] })
      await em.flush()
      const [read] = await factory.fork().find(table, { id: row.id })
      expect(read).toMatchObject({ age: 21, ages: [1, 2] })
    }
  })
})
