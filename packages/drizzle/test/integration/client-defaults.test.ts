import { isPipeflushError, type PipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { eq, sql } from 'drizzle-orm'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js'
import type pg from 'pg'
import type postgres from 'postgres'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'

// Drizzle's client-side defaults as its own inserts and upserts apply them: `$onUpdate` is set by an
// upsert that updates (Drizzle's `onConflictDoUpdate` adds it to its SET), also on a column that has a
// database default; a `$defaultFn` or `$onUpdate` answering a `sql` expression is refused, naming it.
const db = useTestDatabase()

const OLD = new Date('2000-01-01T00:00:00Z')

const stamped = pgTable('stamped', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
  note: text('note'),
  touchedAt: timestamp('touched_at', { withTimezone: true })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date()),
  seenAt: timestamp('seen_at', { withTimezone: true }).$onUpdate(() => new Date()),
})

const bySql = pgTable('by_sql', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  revision: integer('revision')
    .notNull()
    .default(1)
    .$onUpdateFn(() => sql`revision + 1`),
})

const madeBySql = pgTable('made_by_sql', {
  id: serial('id').primaryKey(),
  label: text('label').$defaultFn(() => sql`'x'`),
  // No other default: Drizzle's insert runs it too.
  note: text('note').$onUpdateFn(() => sql`'y'`),
})

let publicIds = 0
const tagged = pgTable('tagged', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
  uses: integer('uses'),
  publicId: text('public_id')
    .notNull()
    .$defaultFn(() => `pub-${++publicIds}`),
  seenAt: timestamp('seen_at', { withTimezone: true }).$onUpdate(() => new Date()),
})

const schema = { stamped, bySql, madeBySql, tagged }

beforeAll(async () => {
  await db.sql.unsafe(`
create table stamped (id serial primary key, name text not null unique, note text,
  touched_at timestamptz not null default now(), seen_at timestamptz);
create table by_sql (id serial primary key, name text not null, revision int not null default 1);
create table made_by_sql (id serial primary key, label text, note text);
create table tagged (id serial primary key, name text not null unique, uses int, public_id text not null,
  seen_at timestamptz);
`)
})

function drizzleOf(driver: (typeof TEST_DRIVERS)[number]) {
  const client = db.client(driver, { max: 2 })
  const database =
    driver === 'postgres.js'
      ? drizzlePostgresJs(client.client as postgres.Sql, { schema })
      : drizzlePg(client.client as pg.Pool, { schema })
  return { ...client, db: database }
}

async function rejection(work: () => unknown): Promise<PipeflushError> {
  try {
    await work()
  } catch (e) {
    if (isPipeflushError(e)) return e
    throw e
  }
  throw new Error('no error')
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('an upsert updating an existing row sets its $onUpdate columns, a database default or not; `update: []` leaves them', async () => {
    const { db: drizzle } = drizzleOf(driver)
    const name = `a-${driver}`
    const kept = `k-${driver}`
    await drizzle.insert(stamped).values([
      { name, touchedAt: OLD, seenAt: OLD },
      { name: kept, touchedAt: OLD, seenAt: OLD },
    ])
    const factory = await createEntityManagerFactory({ db: drizzle })
    const before = Date.now()
    const { result } = await factory.run((em) => ({
      updated: em.upsert(stamped, { name, note: 'again' }, { conflict: ['name'] }),
      named: em.upsert(stamped, { name: `n-${driver}`, note: 'x' }, { conflict: ['name'], update: ['note'] }),
      untouched: em.upsert(stamped, { name: kept }, { conflict: ['name'], update: [] }),
    }))
    const rows = await drizzle.select().from(stamped)
    const row = (n: string) => rows.find((r) => r.name === n)!
    expect(row(name).note).toBe('again')
    expect(row(name).touchedAt.getTime()).toBeGreaterThanOrEqual(before - 1000)
    expect(row(name).seenAt!.getTime()).toBeGreaterThanOrEqual(before - 1000)
    expect(row(`n-${driver}`).touchedAt.getTime()).toBeGreaterThanOrEqual(before - 1000)
    expect(row(kept).touchedAt).toEqual(OLD)
    expect(row(kept).seenAt).toEqual(OLD)
    expect(result.updated.touchedAt.getTime()).toBe(row(name).touchedAt.getTime())
    expect(result.untouched.touchedAt).toEqual(OLD)
    // As Drizzle's own upsert does: its SET holds the $onUpdate columns.
    await drizzle.update(stamped).set({ touchedAt: OLD, seenAt: OLD }).where(eq(stamped.name, name))
    await drizzle
      .insert(stamped)
      .values({ name })
      .onConflictDoUpdate({ target: stamped.name, set: { note: 'drizzle' } })
    const [byDrizzle] = await drizzle.select().from(stamped).where(eq(stamped.name, name))
    expect(byDrizzle!.touchedAt.getTime()).toBeGreaterThanOrEqual(before - 1000)
  })

  // Drizzle's onConflictDoUpdate never sets a $defaultFn column: it fills a new row only.
  test('an upsert without `update` inserts the $defaultFn values of a new row and leaves those of an existing one, as Drizzle does', async () => {
    const { db: drizzle } = drizzleOf(driver)
    const old = `old-${driver}`
    const fresh = `new-${driver}`
    await drizzle.insert(tagged).values({ name: old, uses: 1, publicId: `stored-${driver}` })
    const factory = await createEntityManagerFactory({ db: drizzle })
    const { result } = await factory.run((em) => ({
      old: em.upsert(tagged, { name: old, uses: 2 }, { conflict: ['name'] }),
      fresh: em.upsert(tagged, { name: fresh, uses: 1 }, { conflict: ['name'] }),
    }))
    const [stored] = await drizzle.select().from(tagged).where(eq(tagged.name, old))
    expect(stored).toMatchObject({ uses: 2, publicId: `stored-${driver}` })
    expect(result.old.publicId).toBe(`stored-${driver}`)
    expect(result.fresh.publicId).toMatch(/^pub-\d+$/)
    // Drizzle's own, the same intent:
    await drizzle
      .insert(tagged)
      .values({ name: old, uses: 3 })
      .onConflictDoUpdate({ target: tagged.name, set: { uses: 3 } })
    const [byDrizzle] = await drizzle.select().from(tagged).where(eq(tagged.name, old))
    expect(byDrizzle).toMatchObject({ uses: 3, publicId: `stored-${driver}` })
  })

  test('an upsert giving only its conflict property, without `update`: its $onUpdate set, its $defaultFn kept', async () => {
    const { db: drizzle } = drizzleOf(driver)
    const name = `seen-${driver}`
    await drizzle.insert(tagged).values({ name, uses: 1, publicId: `kept-${driver}`, seenAt: OLD })
    const factory = await createEntityManagerFactory({ db: drizzle })
    const before = Date.now()
    await factory.run((em) => void em.upsert(tagged, { name }, { conflict: ['name'] }))
    const [stored] = await drizzle.select().from(tagged).where(eq(tagged.name, name))
    expect(stored!.publicId).toBe(`kept-${driver}`)
    expect(stored!.seenAt!.getTime()).toBeGreaterThanOrEqual(before - 1000)
  })

  test('a $onUpdate or $defaultFn answering a sql expression: INVALID_VALUE naming its column, nothing sent, the unit usable', async () => {
    const { db: drizzle, counter } = drizzleOf(driver)
    const factory = await createEntityManagerFactory({ db: drizzle })
    const { result: row } = await factory.run((em) => em.create(bySql, { name: 'r' }))
    const em = factory.fork()
    const [loaded] = await em.find(bySql, { id: row.id })
    loaded!.name = 'changed'
    counter.reset()
    const update = await rejection(() => em.flush())
    // $onUpdate runs in the flush's beforeUpdate step: the hook's failure, caused by the value's.
    expect(update).toMatchObject({ code: 'HOOK_FAILED', table: 'bySql' })
    expect(update.cause).toMatchObject({ code: 'INVALID_VALUE', table: 'bySql', column: 'revision' })
    expect(update.message).toContain('bySql.revision: its $onUpdate answered a Drizzle `sql` expression')
    // The cause's "Nothing was sent." is said once.
    expect(update.message.match(/Nothing was sent/g)).toHaveLength(1)
    expect(update.message).not.toContain('..')
    expect(counter.read().roundTrips).toBe(0)
    const create = await rejection(() => em.create(madeBySql, {}))
    expect(create).toMatchObject({ code: 'INVALID_VALUE', table: 'madeBySql', column: 'label' })
    expect(create.message).toContain('$defaultFn answered')
    const onUpdate = await rejection(() => em.create(madeBySql, { label: 'given' }))
    expect(onUpdate).toMatchObject({ code: 'INVALID_VALUE', table: 'madeBySql', column: 'note' })
    expect(onUpdate.message).toContain('its $onUpdate answered')
    // Given a value, the column's functions are not called: the row is written.
    const made = em.create(madeBySql, { label: 'given', note: 'given' })
    loaded!.revision = 2
    await em.flush()
    const [stored] = await drizzle.select().from(bySql).where(eq(bySql.id, row.id))
    expect(stored).toMatchObject({ name: 'changed', revision: 2 })
    expect(made.id).toEqual(expect.any(Number))
  })
})
