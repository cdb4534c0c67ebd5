import { EntityManager, isPipeflushError, type PipelineMode } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// A unique value freed by one statement of a flush (a delete, an update changing it) and taken by
// another (an insert, an update): PostgreSQL checks a unique constraint that is not deferrable at each
// row, so the freeing statement must run first.

const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']

beforeAll(async () => {
  await db.sql.unsafe(`
    create table member (id bigserial primary key, email text not null unique, nick text unique);
    create table sensor_reading (id bigserial primary key, device text not null, taken_at timestamptz not null,
      value float8 not null, unique (device, taken_at));
    create table club (id bigserial primary key, name text not null unique);
    create table club_member (id bigserial primary key, club_id bigint not null references club, who text not null);
    create table label (id bigserial primary key, name text not null unique, note text);
    create table cat_no_action (id bigserial primary key, parent_id bigint references cat_no_action, name text not null unique);
    create table cat_set_null (id bigserial primary key, parent_id bigint references cat_set_null on delete set null,
      name text not null unique);
    create table cat_cascade (id bigserial primary key, parent_id bigint references cat_cascade on delete cascade,
      name text not null unique);
    -- A unique index without a constraint (what Prisma's @unique and Drizzle's uniqueIndex() make);
    -- a partial one and one over an expression are no unique column set.
    create table account (id bigserial primary key, email text not null, handle text not null, gone boolean not null default false);
    create unique index account_email on account (email);
    create unique index account_handle_live on account (handle) where not gone;
    create unique index account_lower_email on account (lower(email));
    -- A unique index that foreign keys reference, of its own table and of another.
    create table login (id bigserial primary key, email text not null, referrer text);
    create unique index login_email on login (email);
    alter table login add foreign key (referrer) references login (email);
    create table login_note (id bigserial primary key, email text not null references login (email));
  `)
})

/** The rows of `table` as `id:column` texts, by id. */
async function rows(table: string, column: string): Promise<string[]> {
  const found = await db.sql.unsafe<{ id: string; v: string | null }[]>(
    `select id::text as id, ${column}::text as v from ${table} order by id`,
  )
  return found.map((r) => `${r.id}:${r.v}`)
}

/** The waves of `em`'s next flush, as `kind table` texts. */
function waves(em: EntityManager): string[][] {
  return em.plan().waves.map((wave) => wave.map((s) => `${s.kind} ${s.table}`))
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  describe.each(modes)('%s', (mode) => {
    const tag = `${driver}-${mode}`

    async function manager(): Promise<EntityManager> {
      const { client } = db.client(driver, { max: 2 })
      return EntityManager.connect(client, { pipeline: mode })
    }

    test('a row removed and a new row given its unique value: the delete goes first, in one flush', async () => {
      const root = await manager()
      const seed = root.fork()
      const old = seed.create('member', { email: `ann-${tag}`, nick: `a-${tag}` })
      await seed.flush()
      const em = root.fork()
      const [found] = await em.find('member', { email: `ann-${tag}` })
      em.remove(found!)
      const fresh = em.create('member', { email: `ann-${tag}`, nick: `a-${tag}` })
      expect(waves(em)).toEqual([['delete member'], ['insert member']])
      const report = await em.flush()
      expect(report).toMatchObject({ inserted: 1, deleted: 1 })
      if (mode === 'burst') expect(report.roundTrips).toBe(1)
      const mine = (await rows('member', 'email')).filter((r) => r.endsWith(`:ann-${tag}`))
      expect(mine).toEqual([`${String(fresh['id'])}:ann-${tag}`])
      expect(fresh['id']).not.toBe(old['id'])
    })

    test('a unique index without a constraint hands on its values as a constraint does: a row removed and one given its value, a value given up and taken', async () => {
      const root = await manager()
      const seed = root.fork()
      const a = seed.create('account', { email: `a-${tag}`, handle: `ha-${tag}` })
      const b = seed.create('account', { email: `b-${tag}`, handle: `hb-${tag}` })
      await seed.flush()
      const em = root.fork()
      const [oldA, oldB] = await em.find('account', { id: [a.id, b.id] }, { orderBy: { id: 'asc' } })
      em.remove(oldA!)
      const fresh = em.create('account', { email: `a-${tag}`, handle: `hc-${tag}` })
      expect(waves(em)).toEqual([['delete account'], ['insert account']])
      await em.flush()
      // Given up by one row, taken by another: the update giving it up first.
      const em2 = root.fork()
      const [b2, c2] = await em2.find('account', { id: [oldB!.id, fresh.id] }, { orderBy: { id: 'asc' } })
      const emails = [b2!.email, c2!.email]
      b2!.email = `b2-${tag}`
      c2!.email = emails[0]!
      await em2.flush()
      expect(await rows('account', 'email')).toEqual(
        expect.arrayContaining([`${oldB!.id}:b2-${tag}`, `${fresh.id}:b-${tag}`]),
      )
    })

    test('a unique index that foreign keys reference hands on its values: a row removed and one given its value', async () => {
      const root = await manager()
      const seed = root.fork()
      const a = seed.create('login', { email: `a-${tag}` })
      const z = seed.create('login', { email: `z-${tag}` })
      seed.create('login', { email: `b-${tag}`, referrer: z })
      seed.create('login_note', { email: z })
      await seed.flush()
      const em = root.fork()
      const [old] = await em.find('login', { id: a.id })
      em.remove(old!)
      const fresh = em.create('login', { email: `a-${tag}` })
      expect(waves(em)).toEqual([['delete login'], ['insert login']])
      await em.flush()
      expect(await rows('login', 'email')).toEqual(expect.arrayContaining([`${fresh.id}:a-${tag}`]))
      expect(await rows('login', 'email')).not.toContain(`${a.id}:a-${tag}`)
    })

    test('a row taking the unique value of a row removed in the same flush', async () => {
      const root = await manager()
      const seed = root.fork()
      const keep = seed.create('member', { email: `bo-${tag}` })
      const gone = seed.create('member', { email: `cy-${tag}` })
      await seed.flush()
      const em = root.fork()
      const [k, g] = await em.find('member', { id: [keep['id'], gone['id']] }, { orderBy: { id: 'asc' } })
      em.remove(g!)
      k!['email'] = `cy-${tag}`
      expect(waves(em)).toEqual([['delete member'], ['update member']])
      await em.flush()
      const mine = await db.sql.unsafe<{ email: string }[]>(
        `select email from member where id in (${String(keep['id'])}, ${String(gone['id'])})`,
      )
      expect(mine.map((r) => r.email)).toEqual([`cy-${tag}`])
    })

    // A tree (a self-referencing key): an update may be of a row the delete removes by its ON DELETE
    // action only when the row is among the deleted ones' descendants, which a row whose parent is
    // stored as none of them is not.
    test.each(['cat_no_action', 'cat_set_null', 'cat_cascade'])(
      'a row of a tree (%s) taking the unique value of a row removed in the same flush',
      async (table) => {
        const root = await manager()
        const seed = root.fork()
        const keep = seed.create(table, { name: `kit-${tag}` })
        const gone = seed.create(table, { name: `tom-${tag}` })
        seed.create(table, { name: `tom's kitten-${tag}`, parent_id: gone })
        await seed.flush()
        const em = root.fork()
        const [k, g] = await em.find(table, { id: [keep['id'], gone['id']] }, { orderBy: { id: 'asc' } })
        if (table !== 'cat_cascade') {
          const [kitten] = await em.find(table, { parent_id: gone['id'] })
          em.remove(kitten!)
        }
        em.remove(g!)
        k!['name'] = `tom-${tag}`
        expect(waves(em).flat()).toEqual([`delete ${table}`, `update ${table}`])
        await em.flush()
        expect((await rows(table, 'name')).filter((r) => r.endsWith(tag))).toEqual([
          `${String(keep['id'])}:tom-${tag}`,
        ])
      },
    )

    test('a unique value given up by an update and taken by a new row, and one passed between updates of different columns', async () => {
      const root = await manager()
      const seed = root.fork()
      const a = seed.create('member', { email: `da-${tag}`, nick: `da-${tag}` })
      const b = seed.create('member', { email: `db-${tag}` })
      await seed.flush()
      const em = root.fork()
      const [a1, b1] = await em.find('member', { id: [a['id'], b['id']] }, { orderBy: { id: 'asc' } })
      // a sets email and nick (its own statement), giving up its email; b sets email only, taking it;
      // b's statement sorts first among the updates, and the new row would go before both.
      a1!['email'] = `da2-${tag}`
      a1!['nick'] = `da2-${tag}`
      b1!['email'] = `da-${tag}`
      em.create('member', { email: `db-${tag}` }) // b's old email
      const planned = waves(em)
      expect(planned.flat().sort()).toEqual(['insert member', 'update member', 'update member'])
      expect(planned[0]).toEqual(['update member']) // a's statement first
      await em.flush()
      const mine = await db.sql.unsafe<{ email: string; nick: string | null }[]>(
        `select email, nick from member where email like '%-${tag}' and (email like 'd%') order by email`,
      )
      expect(mine).toEqual([
        { email: `da-${tag}`, nick: null },
        { email: `da2-${tag}`, nick: `da2-${tag}` },
        { email: `db-${tag}`, nick: null },
      ])
    })

    test('rows of one update handing on their unique values: each layer a statement of its own, in order', async () => {
      const root = await manager()
      const seed = root.fork()
      const made = ['fa', 'fb', 'fc'].map((e) => seed.create('member', { email: `${e}-${tag}` }))
      await seed.flush()
      const em = root.fork()
      const [a, b, c] = await em.find('member', { id: made.map((m) => m['id']) }, { orderBy: { id: 'asc' } })
      // Every row sets only its email (one statement's shape): c gives its email up for a new one, b
      // takes c's, a takes b's.
      a!['email'] = `fb-${tag}`
      b!['email'] = `fc-${tag}`
      c!['email'] = `fz-${tag}`
      expect(waves(em)).toEqual([['update member'], ['update member'], ['update member']])
      const report = await em.flush()
      expect(report).toMatchObject({ updated: 3, statements: 3 })
      if (mode === 'burst') expect(report.roundTrips).toBe(1)
      expect(await rows('member', 'email')).toEqual(
        expect.arrayContaining(
          [`fb-${tag}`, `fc-${tag}`, `fz-${tag}`].map((email, i) => `${String(made[i]!['id'])}:${email}`),
        ),
      )
      expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
    })

    test('a composite unique value (a Date among it) freed by a delete and taken by a new row', async () => {
      const root = await manager()
      const at = new Date(Date.UTC(2026, 10, 29, 12, 0, 0, 123))
      const seed = root.fork()
      seed.create('sensor_reading', { device: tag, taken_at: at, value: 1 })
      await seed.flush()
      const em = root.fork()
      const [r] = await em.find('sensor_reading', { device: tag })
      em.remove(r!)
      em.create('sensor_reading', { device: tag, taken_at: new Date(at.getTime()), value: 2 })
      expect(waves(em)).toEqual([['delete sensor_reading'], ['insert sensor_reading']])
      await em.flush()
      const readings = await db.sql.unsafe<{ value: number }[]>(
        `select value from sensor_reading where device = '${tag}'`,
      )
      expect(readings.map((x) => x.value)).toEqual([2])
    })

    test('a row removed and upserted again by its unique value: the delete first, the upsert a new row its entity holds', async () => {
      const root = await manager()
      const seed = root.fork()
      const old = seed.create('label', { name: `sf-${tag}`, note: 'old' })
      await seed.flush()
      const em = root.fork()
      const [found] = await em.find('label', { name: `sf-${tag}` })
      em.remove(found!)
      const again = em.upsert(
        'label',
        { name: `sf-${tag}`, note: 'new' },
        { conflict: ['name'], update: ['note'] },
      )
      expect(waves(em)).toEqual([['delete label'], ['insert label']])
      await em.flush()
      // Upserted first, the old row was updated, then deleted: no row kept the values, the entity detached.
      expect(em.stateOf(again)).toBe('managed')
      expect(again['id']).not.toBe(old['id'])
      expect(await rows('label', 'note')).toContain(`${String(again['id'])}:new`)
      expect(await rows('label', 'name')).not.toContain(`${String(old['id'])}:sf-${tag}`)
    })

    test('values swapped between rows of one update fail as the server reports them: nothing committed, the unit of work as it was', async () => {
      const root = await manager()
      const seed = root.fork()
      const a = seed.create('member', { email: `ea-${tag}` })
      const b = seed.create('member', { email: `eb-${tag}` })
      await seed.flush()
      const em = root.fork()
      const [a1, b1] = await em.find('member', { id: [a['id'], b['id']] }, { orderBy: { id: 'asc' } })
      a1!['email'] = `eb-${tag}`
      b1!['email'] = `ea-${tag}`
      const pending = em.pending
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION')).toBe(true)
      expect(em.pending).toEqual(pending)
      expect(await rows('member', 'email')).toEqual(
        expect.arrayContaining([`${String(a['id'])}:ea-${tag}`, `${String(b['id'])}:eb-${tag}`]),
      )
      // Through a third value, a flush at a time, the swap goes.
      a1!['email'] = `ea-${tag}`
      b1!['email'] = `swap-${tag}`
      await em.flush()
      a1!['email'] = `eb-${tag}`
      await em.flush()
      b1!['email'] = `ea-${tag}`
      await em.flush()
      expect(await rows('member', 'email')).toEqual(
        expect.arrayContaining([`${String(a['id'])}:eb-${tag}`, `${String(b['id'])}:ea-${tag}`]),
      )
    })

    test('a handoff whose order would contradict a foreign key is left to the server, which reports the duplicate', async () => {
      const root = await manager()
      const seed = root.fork()
      const club = seed.create('club', { name: `chess-${tag}` })
      seed.create('club_member', { club_id: club, who: 'ann' })
      await seed.flush()
      const em = root.fork()
      const [c] = await em.find('club', { name: `chess-${tag}` })
      const [m] = await em.find('club_member', { club_id: c!['id'] })
      // The new club must exist before the member moves to it, the member move before the old club
      // goes, and the old club go before the new one takes its name: a cycle.
      const renamed = em.create('club', { name: `chess-${tag}` })
      m!['club_id'] = renamed
      em.remove(c!)
      const error = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION')).toBe(true)
      expect(await rows('club', 'name')).toContain(`${String(club['id'])}:chess-${tag}`)
    })
  })
})
