import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { asc, eq } from 'drizzle-orm'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { date, jsonb, pgTable, serial, text } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js'
import type pg from 'pg'
import type postgres from 'postgres'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'

// A property given as `undefined` at create or upsert (an optional field of a request body, which
// `$inferInsert` allows) is left out, as Drizzle's insert leaves it out: the column's default, or
// NULL. It failed with INVALID_VALUE "undefined is not a value" (found by an outside probe).
const db = useTestDatabase()

const users = pgTable('uv_user', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
  role: text('role').notNull().default('member'),
  birthDate: date('birth_date', { mode: 'date' }),
  nickname: text('nickname').$defaultFn(() => 'nick'),
})

// A jsonb object's optional property given as undefined is left out of the JSON, as Drizzle (by
// JSON.stringify) leaves it out; it failed the flush with INVALID_VALUE (found by an outside probe).
const prefs = pgTable('uv_prefs', {
  id: serial('id').primaryKey(),
  settings: jsonb('settings').$type<{ theme: string; locale?: string | undefined }>().notNull(),
})

const schema = { users, prefs }

beforeAll(async () => {
  await db.sql.unsafe(`create table uv_user (id serial primary key, name text not null unique,
  role text not null default 'member', birth_date date, nickname text);
  create table uv_prefs (id serial primary key, settings jsonb not null)`)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  function drizzleOf() {
    const client = db.client(driver, { max: 2 })
    return driver === 'postgres.js'
      ? drizzlePostgresJs(client.client as postgres.Sql, { schema })
      : drizzlePg(client.client as pg.Pool, { schema })
  }

  test('create: an undefined property is stored as Drizzle insert stores it (default, NULL, $defaultFn)', async () => {
    const drizzle = drizzleOf()
    const factory = await createEntityManagerFactory({ db: drizzle })
    const body: { role?: string; birthDate?: Date; nickname?: string } = {}
    const given = [
      { name: `a-${driver}`, role: body.role },
      { name: `b-${driver}`, birthDate: body.birthDate },
      { name: `c-${driver}`, nickname: body.nickname },
    ]
    const { result } = await factory.run((em) => given.map((values) => em.create(users, values)))
    const viaDrizzle = await drizzle
      .insert(users)
      .values(given.map((v) => ({ ...v, name: `drizzle-${v.name}` })))
      .returning()
    const stored = await drizzle
      .select()
      .from(users)
      .where(eq(users.name, `a-${driver}`))
    expect(stored[0]!.role).toBe('member')
    const strip = ({ id: _id, name: _name, ...rest }: typeof users.$inferSelect) => rest
    expect(result.map((e) => strip({ ...e }))).toEqual(viaDrizzle.map(strip))
    expect(result.map((e) => strip({ ...e }))).toEqual([
      { role: 'member', birthDate: null, nickname: 'nick' },
      { role: 'member', birthDate: null, nickname: 'nick' },
      { role: 'member', birthDate: null, nickname: 'nick' },
    ])
  })

  test('upsert: an undefined property is left out of the insert, and of the update', async () => {
    const drizzle = drizzleOf()
    const factory = await createEntityManagerFactory({ db: drizzle })
    await drizzle.insert(users).values({ name: `u-${driver}`, role: 'admin' })
    const role: string | undefined = undefined
    const { result } = await factory.run((em) => [
      em.upsert(
        users,
        { name: `u-${driver}`, role, birthDate: new Date('2000-01-02') },
        { conflict: ['name'] },
      ),
      em.upsert(users, { name: `v-${driver}`, role }, { conflict: ['name'] }),
    ])
    const stored = await drizzle.select().from(users).orderBy(asc(users.name))
    expect(stored.find((u) => u.name === `u-${driver}`)).toMatchObject({
      role: 'admin',
      birthDate: new Date('2000-01-02'),
    })
    expect(stored.find((u) => u.name === `v-${driver}`)).toMatchObject({ role: 'member', nickname: 'nick' })
    expect(result.map((e) => e.role)).toEqual(['admin', 'member'])
  })

  test("jsonb: an object's undefined property is left out, as Drizzle leaves it out; no update follows", async () => {
    const drizzle = drizzleOf()
    const factory = await createEntityManagerFactory({ db: drizzle })
    const given = { theme: 'dark', locale: undefined }
    const { result } = await factory.run((em) => em.create(prefs, { settings: given }))
    const [viaDrizzle] = await drizzle.insert(prefs).values({ settings: given }).returning()
    const [stored] = await drizzle.select().from(prefs).where(eq(prefs.id, result.id))
    expect(stored!.settings).toEqual(viaDrizzle!.settings)
    expect(Object.keys(stored!.settings)).toEqual(['theme'])
    const { report } = await factory.run(async (em) => {
      const held = await em.load(prefs, result.id)
      held.settings = { theme: 'dark', locale: undefined } // the same JSON as stored
    })
    expect(report.updated).toBe(0)
    const changed = await factory.run(async (em) => {
      const held = await em.load(prefs, result.id)
      held.settings = { ...held.settings, locale: 'fr' }
    })
    expect(changed.report.updated).toBe(1)
  })

  test('assign: an undefined property is left as it is (a Partial<$inferInsert> patch), as Drizzle set() leaves it', async () => {
    const drizzle = drizzleOf()
    const factory = await createEntityManagerFactory({ db: drizzle })
    await drizzle.insert(users).values({ name: `p-${driver}`, role: 'admin', nickname: 'pat' })
    const patch: Partial<typeof users.$inferInsert> = { role: undefined, nickname: 'patty' }
    const { report } = await factory.run(async (em) => {
      const [user] = await em.find(users, { name: `p-${driver}` })
      em.assign(user!, patch)
    })
    expect(report.updated).toBe(1)
    const [stored] = await drizzle
      .select()
      .from(users)
      .where(eq(users.name, `p-${driver}`))
    expect(stored).toMatchObject({ role: 'admin', nickname: 'patty' })
  })
})
