import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { eq } from 'drizzle-orm'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { pgTable, serial, text } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js'
import type pg from 'pg'
import type postgres from 'postgres'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'

const db = useTestDatabase()

// A table of `pgTable` is where the search path of the application's connections finds it, as
// Drizzle's own unqualified SQL is: a pool whose search path is a tenant's schema writes the tenant's
// rows, never another schema's table of the same name.
const notes = pgTable('sp_note', { id: serial('id').primaryKey(), body: text('body').notNull() })
const schema = { notes }

beforeAll(async () => {
  await db.sql.unsafe(`
    create table if not exists public.sp_note (id serial primary key, body text not null);
    create schema if not exists sp_tenant;
    create table if not exists sp_tenant.sp_note (id serial primary key, body text not null);
    truncate public.sp_note, sp_tenant.sp_note restart identity;
    insert into public.sp_note (body) values ('public row');
    insert into sp_tenant.sp_note (body) values ('tenant row');
  `)
})

function drizzleWithPath(driver: (typeof TEST_DRIVERS)[number], path: string) {
  const client = db.client(driver, {
    max: 2,
    postgresJs: { connection: { search_path: path } },
    pg: { options: `-c search_path=${path}` },
  })
  const database =
    driver === 'postgres.js'
      ? drizzlePostgresJs(client.client as postgres.Sql, { schema })
      : drizzlePg(client.client as pg.Pool, { schema })
  return { ...client, db: database }
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test("a pool whose search path is a tenant's: pipeflush reads and writes the tenant's table", async () => {
    const { db: drizzleDb, end } = drizzleWithPath(driver, 'sp_tenant')
    try {
      const factory = await createEntityManagerFactory({ db: drizzleDb, checkDatabase: true })
      expect(factory.schema.tables.get('notes')?.sqlName).toBe('"sp_tenant"."sp_note"')
      await factory.run(async (em) => {
        const loaded = await em.load(drizzleDb.select().from(notes).where(eq(notes.id, 1)))
        expect(loaded.map((n) => n.body)).toEqual(['tenant row'])
        loaded[0]!.body = `tenant row, ${driver}`
        em.create(notes, { body: `new, ${driver}` })
      })
      const tenant = await db.sql.unsafe('select body from sp_tenant.sp_note order by id')
      expect(tenant.map((r) => r['body'])).toEqual([`tenant row, ${driver}`, `new, ${driver}`])
      const pub = await db.sql.unsafe('select body from public.sp_note order by id')
      expect(pub.map((r) => r['body'])).toEqual(['public row'])
    } finally {
      await db.sql.unsafe(`
        truncate sp_tenant.sp_note restart identity;
        insert into sp_tenant.sp_note (body) values ('tenant row');
      `)
      await end()
    }
  })

  test('a search path whose first schema lacks the table finds it further on', async () => {
    const { db: drizzleDb, end } = drizzleWithPath(driver, 'sp_missing,public')
    try {
      const factory = await createEntityManagerFactory({ db: drizzleDb })
      expect(factory.schema.tables.get('notes')?.sqlName).toBe('"public"."sp_note"')
    } finally {
      await end()
    }
  })
})
