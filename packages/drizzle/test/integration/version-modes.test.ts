import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { eq } from 'drizzle-orm'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { bigint, pgTable, serial, text } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js'
import type pg from 'pg'
import type postgres from 'postgres'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory, isPipeflushError } from '../../src/index.ts'

// A version column in bigint mode holds bigints, as Drizzle's select gives them, after a create and
// an update as when loaded. It held the numbers 1 and 2 (typed bigint: `version + 1n` threw); found
// by an outside probe.
const db = useTestDatabase()

const docs = pgTable('vm_doc', {
  id: serial('id').primaryKey(),
  title: text('title').notNull(),
  version: bigint('version', { mode: 'bigint' }).notNull().default(1n),
})
const notes = pgTable('vm_note', {
  id: serial('id').primaryKey(),
  title: text('title').notNull(),
  version: bigint('version', { mode: 'number' }).notNull().default(1),
})

const schema = { docs, notes }

beforeAll(async () => {
  await db.sql.unsafe(`
create table vm_doc (id serial primary key, title text not null, version bigint not null default 1);
create table vm_note (id serial primary key, title text not null, version bigint not null default 1);
`)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('a bigint version column in either mode: created, loaded and updated, the mode Drizzle selects', async () => {
    const client = db.client(driver, { max: 2 })
    const drizzle =
      driver === 'postgres.js'
        ? drizzlePostgresJs(client.client as postgres.Sql, { schema })
        : drizzlePg(client.client as pg.Pool, { schema })
    const factory = await createEntityManagerFactory({ db: drizzle, version: 'version' })
    const { result: created } = await factory.run((em) => ({
      doc: em.create(docs, { title: 'a' }),
      note: em.create(notes, { title: 'a' }),
    }))
    expect([created.doc.version, created.note.version]).toEqual([1n, 1])
    const { result: updated } = await factory.run(async (em) => {
      const doc = await em.load(docs, created.doc.id)
      const note = await em.load(notes, created.note.id)
      expect([doc.version, note.version]).toEqual([1n, 1])
      doc.title = 'b'
      note.title = 'b'
      await em.flush()
      expect([doc.version, note.version]).toEqual([2n, 2])
      doc.title = 'c'
      return { doc, note }
    })
    expect([updated.doc.version, updated.note.version]).toEqual([3n, 2])
    const [doc] = await drizzle.select().from(docs).where(eq(docs.id, created.doc.id))
    expect(doc).toEqual({ ...updated.doc })
    const { result: upserted } = await factory.run((em) =>
      em.upsert(docs, { id: 1000 + created.doc.id, title: 'u' }, { conflict: ['id'] }),
    )
    expect(upserted.version).toBe(1n)
  })

  test('`versionColumn` (the name core and Kysely give the option) checks and increments the same', async () => {
    const client = db.client(driver, { max: 2 })
    const drizzle =
      driver === 'postgres.js'
        ? drizzlePostgresJs(client.client as postgres.Sql, { schema })
        : drizzlePg(client.client as pg.Pool, { schema })
    const factory = await createEntityManagerFactory({ db: drizzle, versionColumn: { docs: 'version' } })
    const { result: created } = await factory.run((em) => em.create(docs, { title: 'v' }))
    await factory.run(async (em) => {
      ;(await em.load(docs, created.id)).title = 'w'
    })
    const [row] = await drizzle.select().from(docs).where(eq(docs.id, created.id))
    expect(row?.version).toBe(2n)
    const em = factory.fork()
    const mine = await em.load(docs, created.id)
    await drizzle.update(docs).set({ title: 'other', version: 3n }).where(eq(docs.id, created.id))
    mine.title = 'lost'
    await expect(em.flush()).rejects.toSatisfy((e) => isPipeflushError(e, 'OPTIMISTIC_LOCK'))
  })
})
