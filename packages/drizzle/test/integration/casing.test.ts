import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { asc } from 'drizzle-orm'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import {
  type AnyPgColumn,
  bigint,
  integer,
  pgSchema,
  pgTable,
  serial,
  text,
  timestamp,
} from 'drizzle-orm/pg-core'
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js'
import type pg from 'pg'
import type postgres from 'postgres'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'

const db = useTestDatabase()

// Columns declared without a name take the database's `casing` (snake_case here), in a table of
// another schema whose enum-free columns are all unnamed.
const crm = pgSchema('crm')
const customers = crm.table('customer_account', {
  accountId: serial().primaryKey(),
  displayName: text().notNull(),
  referredById: integer().references((): AnyPgColumn => customers.accountId),
  signedUpAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
})
const notes = pgTable('account_note', {
  noteId: bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  accountId: integer()
    .notNull()
    .references(() => customers.accountId),
  noteText: text().notNull(),
})
const schema = { customers, notes }

beforeAll(async () => {
  await db.sql.unsafe(`
    create schema crm;
    create table crm.customer_account (account_id serial primary key, display_name text not null,
      referred_by_id integer references crm.customer_account, signed_up_at timestamptz not null default now());
    create table account_note (note_id bigint primary key generated always as identity,
      account_id integer not null references crm.customer_account, note_text text not null);
  `)
})

describe.each(TEST_DRIVERS)("%s: Drizzle's casing", (driver) => {
  test('unnamed columns are written and read under the names the casing gives them', async () => {
    await db.sql.unsafe('truncate account_note, crm.customer_account restart identity cascade')
    const { client } = db.client(driver, { max: 1 })
    const database =
      driver === 'postgres.js'
        ? drizzlePostgresJs(client as postgres.Sql, { schema, casing: 'snake_case' })
        : drizzlePg(client as pg.Pool, { schema, casing: 'snake_case' })
    const factory = await createEntityManagerFactory({ db: database, checkDatabase: true })
    const { report } = await factory.run((em) => {
      const ada = em.create(customers, { displayName: 'Ada' })
      const bob = em.create(customers, { displayName: 'Bob', referredById: ada })
      em.create(notes, { accountId: bob, noteText: 'referred' })
    })
    expect(report).toMatchObject({ inserted: 3, roundTrips: expect.any(Number) })
    const selected = await database.select().from(customers).orderBy(asc(customers.accountId))
    const em = factory.fork()
    const found = await em.find(customers, { displayName: ['Ada', 'Bob'] })
    expect(found.map((c) => ({ ...c }))).toEqual(selected)
    expect(selected[1]).toMatchObject({ displayName: 'Bob', referredById: selected[0]!.accountId })
    const [note] = await em.find(notes, {}, { with: { account: true } as never })
    expect(note).toMatchObject({ noteText: 'referred', accountId: selected[1]!.accountId })
    expect((note as unknown as { account: unknown }).account).toBe(found[1])
  })
})
