import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { eq } from 'drizzle-orm'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { pgTable, text, uuid } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js'
import type pg from 'pg'
import type postgres from 'postgres'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'

// Tables keyed by `uuid().primaryKey().defaultRandom()`, the common Drizzle key: get-or-create by a
// unique name, and new rows referencing the upserted row by its entity (typed: a uuid column takes
// one), in one round trip whether the row existed or not.
const db = useTestDatabase()

const labels = pgTable('uk_label', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull().unique(),
})

const posts = pgTable('uk_post', {
  id: uuid('id').primaryKey().defaultRandom(),
  title: text('title').notNull(),
  labelId: uuid('label_id')
    .notNull()
    .references(() => labels.id),
})

const schema = { labels, posts }

beforeAll(async () => {
  await db.sql.unsafe(`
create table uk_label (id uuid primary key default gen_random_uuid(), name text not null unique);
create table uk_post (id uuid primary key default gen_random_uuid(), title text not null,
  label_id uuid not null references uk_label);
insert into uk_label (name) values ('old');
`)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('an existing and a new label upserted, posts referencing their entities: one round trip, the stored keys', async () => {
    const client = db.client(driver, { max: 2 })
    const drizzle =
      driver === 'postgres.js'
        ? drizzlePostgresJs(client.client as postgres.Sql, { schema })
        : drizzlePg(client.client as pg.Pool, { schema })
    const factory = await createEntityManagerFactory({ db: drizzle })
    await factory.run((em) => void em.create(labels, { name: `warm-${driver}` }))
    client.counter.reset()
    const { result, report } = await factory.run((em) => {
      const old = em.upsert(labels, { name: 'old' }, { conflict: ['name'], update: [] })
      const fresh = em.upsert(labels, { name: `new-${driver}` }, { conflict: ['name'] })
      const a = em.create(posts, { title: `a-${driver}`, labelId: old })
      const b = em.create(posts, { title: `b-${driver}`, labelId: fresh })
      return { old, fresh, a, b }
    })
    expect(report).toMatchObject({ roundTrips: 1, upserted: 2, inserted: 2 })
    expect(client.counter.read().roundTrips).toBe(1)
    const stored = await drizzle.select().from(labels)
    const idOf = (name: string) => stored.find((l) => l.name === name)!.id
    expect(result.old.id).toBe(idOf('old'))
    expect(result.fresh.id).toBe(idOf(`new-${driver}`))
    expect([result.a.labelId, result.b.labelId]).toEqual([idOf('old'), idOf(`new-${driver}`)])
    const [a] = await drizzle
      .select()
      .from(posts)
      .where(eq(posts.title, `a-${driver}`))
    expect(a!.labelId).toBe(idOf('old'))
  })
})
