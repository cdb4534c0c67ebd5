import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

// Row-level security keyed on a setting of the transaction (`current_setting('app.tenant_id')`) and
// a role set per request: the `localSettings` option sets them (SET LOCAL) in every flush's and read
// batch's transaction, in the same message. Counted at the socket: one round trip per flush and per
// read batch, as without them; and a pooled connection goes back without them.
const db = useTestDatabase()
const login = 'ls_login'
const reader = 'ls_reader'

beforeAll(async () => {
  await db.sql.unsafe(`
    create role ${login};
    create role ${reader};
    grant ${reader} to ${login};
    create table ls_note (
      id serial primary key,
      tenant text not null default current_setting('app.tenant_id'),
      who text not null default current_user,
      body text not null
    );
    alter table ls_note enable row level security;
    create policy ls_tenant on ls_note
      using (tenant = current_setting('app.tenant_id', true))
      with check (tenant = current_setting('app.tenant_id', true));
    grant select, insert, update, delete on ls_note to ${login}, ${reader};
    grant usage on sequence ls_note_id_seq to ${login}, ${reader};
  `)
})

afterAll(async () => {
  await db.sql
    .unsafe(
      `drop table ls_note; drop owned by ${login}; drop owned by ${reader}; drop role ${login}, ${reader}`,
    )
    .catch(() => {})
})

/** Every note as the table owner sees it (no policy applies to it): [tenant, who, body], by id. */
async function stored(): Promise<string[][]> {
  const rows = await db.sql.unsafe<{ tenant: string; who: string; body: string }[]>(
    'select tenant, who, body from ls_note order by id',
  )
  return rows.map((r) => [r.tenant, r.who, r.body])
}

/** `work` on a pool of `max` connections logging in as the login role, the notes table emptied first. */
async function onEmptyTable(
  driver: (typeof TEST_DRIVERS)[number],
  max: number,
  work: (tc: ReturnType<typeof loginClient>) => Promise<void>,
): Promise<void> {
  await db.sql.unsafe('truncate ls_note')
  const tc = loginClient(driver, max)
  try {
    await work(tc)
  } finally {
    await tc.end()
  }
}

/** A pool of `max` connections logging in as the login role, with its round-trip counter. */
function loginClient(driver: (typeof TEST_DRIVERS)[number], max: number, prepare?: boolean) {
  return db.client(driver, {
    max,
    ...(prepare === undefined ? {} : { prepare }),
    postgresJs: { connection: { role: login } },
    pg: { options: `-c role=${login}` },
  })
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each([1, 3])(
    'pool of %i: each fork writes and reads as its own tenant, one round trip per flush and per read batch, and no connection keeps a setting',
    async (max) => {
      await onEmptyTable(driver, max, async (tc) => {
        const root = await EntityManager.connect(tc.client)
        const tenants = ['a', 'b', 'c'].map((t) => root.fork({ localSettings: { 'app.tenant_id': t } }))
        for (const [i, em] of tenants.entries()) em.create('ls_note', { body: `note ${i}` })
        // Flushed together, on as many connections as the pool has.
        tc.counter.reset()
        const reports = await Promise.all(tenants.map((em) => em.flush()))
        // Connections the pool opens meanwhile are counted apart.
        expect(reports.map((r) => r.roundTrips - r.connectRoundTrips)).toEqual([1, 1, 1])
        // On several connections the ids are drawn in the order the flushes got theirs.
        expect((await stored()).sort((x, y) => (x[2]! < y[2]! ? -1 : 1))).toEqual([
          ['a', login, 'note 0'],
          ['b', login, 'note 1'],
          ['c', login, 'note 2'],
        ])
        // Each reads its own: two reads of a tick, one batch, one round trip.
        for (const [i, em] of tenants.entries()) {
          const reading = em.fork()
          const { result, count } = await tc.counter.measure(() =>
            Promise.all([
              reading.find('ls_note', {}),
              reading.select({ text: "select current_setting('app.tenant_id', true) as t", params: [] }),
            ]),
          )
          expect(result[0].map((n) => n['body'])).toEqual([`note ${i}`])
          expect(result[1]).toEqual([{ t: ['a', 'b', 'c'][i] }])
          expect(count.roundTrips).toBe(1)
        }
        // The pool's connections, taken one after another, hold no tenant.
        for (let k = 0; k < max; k++) {
          const [row] = await tc.query<{ t: string | null }>(
            "select coalesce(current_setting('app.tenant_id', true), '') as t",
          )
          expect(row?.t).toBe('')
        }
        // Without the setting, the policy hides every row.
        expect(await root.fork().find('ls_note', {})).toEqual([])
      })
    },
  )

  test.each(['burst', 'waves', 'off'] as const)(
    '%s mode: a fork over its parent takes a role and a tenant; updates and deletes see only its rows',
    async (pipeline) => {
      await onEmptyTable(driver, 2, async (tc) => {
        const root = await EntityManager.connect(tc.client, {
          pipeline,
          localSettings: { role: reader, 'app.tenant_id': 'x' },
        })
        const other = root.fork({ localSettings: { 'app.tenant_id': 'y' } })
        other.create('ls_note', { body: 'of y' })
        await other.flush()
        const em = root.fork()
        const note = em.create('ls_note', { body: 'of x' })
        await em.flush()
        expect(note['tenant']).toBe('x')
        expect(note['who']).toBe(reader)
        const changing = root.fork()
        const [mine] = await changing.find('ls_note', {})
        expect(mine?.['body']).toBe('of x')
        mine!['body'] = 'of x, changed'
        await changing.flush()
        changing.remove(mine!)
        await changing.flush()
        expect(await stored()).toEqual([['y', reader, 'of y']])
      })
    },
  )

  test("a tick's read that fails: the others, sent again one by one, still carry the settings", async () => {
    await onEmptyTable(driver, 2, async (tc) => {
      const root = await EntityManager.connect(tc.client)
      for (const tenant of ['f', 'g']) {
        const seed = root.fork({ localSettings: { 'app.tenant_id': tenant } })
        seed.create('ls_note', { body: `of ${tenant}` })
        await seed.flush()
      }
      const em = root.fork({ localSettings: { 'app.tenant_id': 'f' } })
      const [failed, found, setting] = await Promise.allSettled([
        em.select({ text: 'select 1 / 0 as x', params: [] }),
        em.find('ls_note', {}),
        em.select({ text: "select current_setting('app.tenant_id', true) as t", params: [] }),
      ])
      expect(failed.status === 'rejected' && isPipeflushError(failed.reason, 'STATEMENT_FAILED')).toBe(true)
      expect(found.status === 'fulfilled' && found.value.map((n) => n['body'])).toEqual(['of f'])
      expect(setting.status === 'fulfilled' && setting.value).toEqual([{ t: 'f' }])
    })
  })

  test('a locking read and its flush run in one transaction with the settings', async () => {
    await onEmptyTable(driver, 1, async (tc) => {
      const root = await EntityManager.connect(tc.client)
      const seed = root.fork({ localSettings: { 'app.tenant_id': 'k' } })
      const note = seed.create('ls_note', { body: 'locked' })
      await seed.flush()
      const em = root.fork({ localSettings: { 'app.tenant_id': 'k' } })
      tc.counter.reset()
      const locked = await em.load('ls_note', note['id'], { lock: 'update' })
      locked['body'] = 'locked, changed'
      em.create('ls_note', { body: 'beside it' })
      const report = await em.flush()
      expect(report.roundTrips).toBe(1)
      expect(tc.counter.read().roundTrips).toBe(2)
      expect(await stored()).toEqual([
        ['k', login, 'locked, changed'],
        ['k', login, 'beside it'],
      ])
    })
  })

  test('a row the policy refuses fails the flush: nothing committed, the entities as they were', async () => {
    await onEmptyTable(driver, 1, async (tc) => {
      const root = await EntityManager.connect(tc.client)
      const em = root.fork({ localSettings: { 'app.tenant_id': 'p' } })
      const fine = em.create('ls_note', { body: 'fine' })
      const foreign = em.create('ls_note', { body: 'foreign', tenant: 'q' })
      const failure = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(failure, 'STATEMENT_FAILED') && failure.sqlState).toBe('42501')
      expect(await stored()).toEqual([])
      expect([em.stateOf(fine), em.stateOf(foreign)]).toEqual(['new', 'new'])
      foreign['tenant'] = 'p'
      const report = await em.flush()
      expect(report.roundTrips).toBe(1)
      expect(await stored()).toEqual([
        ['p', login, 'fine'],
        ['p', login, 'foreign'],
      ])
    })
  })

  test('a parameter the server does not know fails the flush and the read batch, naming it; nothing committed', async () => {
    await onEmptyTable(driver, 1, async (tc) => {
      const root = await EntityManager.connect(tc.client)
      const em = root.fork({ localSettings: { 'app.tenant_id': 'u', no_such_parameter: 1 } })
      const note = em.create('ls_note', { body: 'never' })
      const failed = await em.flush().catch((e: unknown) => e)
      expect(isPipeflushError(failed, 'STATEMENT_FAILED') && failed.sqlState).toBe('42704')
      expect((failed as Error).message).toContain('no_such_parameter')
      expect(em.stateOf(note)).toBe('new')
      expect(await stored()).toEqual([])
      const read = await em.find('ls_note', {}).catch((e: unknown) => e)
      expect(isPipeflushError(read, 'STATEMENT_FAILED') && read.sqlState).toBe('42704')
      // The connection is usable after both.
      const fine = root.fork({ localSettings: { 'app.tenant_id': 'u' } })
      fine.create('ls_note', { body: 'written' })
      await fine.flush()
      expect(await stored()).toEqual([['u', login, 'written']])
    })
  })
})

describe.each(TEST_DRIVERS)('%s, a login role with no privileges of its own (Supabase-style)', (driver) => {
  test("the schema is read as the connect options' role: inserts read back what the server filled", async () => {
    await db.sql.unsafe(
      `drop role if exists ls_authenticator; create role ls_authenticator noinherit; grant ${reader} to ls_authenticator; truncate ls_note`,
    )
    const tc = db.client(driver, {
      max: 1,
      postgresJs: { connection: { role: 'ls_authenticator' } },
      pg: { options: '-c role=ls_authenticator' },
    })
    try {
      const root = await EntityManager.connect(tc.client, { localSettings: { role: reader } })
      expect(root.schema.tables.get('ls_note')?.selectDenied).toBeUndefined()
      const em = root.fork({ localSettings: { 'app.tenant_id': 's' } })
      const note = em.create('ls_note', { body: 'filled' })
      expect((await em.flush()).roundTrips).toBe(1)
      expect([note['tenant'], note['who']]).toEqual(['s', reader])
      // Read as the login role alone, the table is one it may not select from.
      const bare = await EntityManager.connect(tc.client)
      expect(bare.schema.tables.get('ls_note')?.selectDenied).toBe(true)
    } finally {
      await tc.end()
      await db.sql.unsafe('drop owned by ls_authenticator; drop role ls_authenticator').catch(() => {})
    }
  })
})

describe.each(TEST_DRIVERS)('%s: a list of names', (driver) => {
  test('search_path given as a list sets each schema of it, not one schema named by the whole text', async () => {
    await db.sql.unsafe('create schema if not exists "LS_Upper"; create schema if not exists ls_lower')
    const tc = db.client(driver, { max: 1 })
    try {
      const root = await EntityManager.connect(tc.client)
      const em = root.fork({ localSettings: { search_path: 'ls_lower, "LS_Upper", LS_Lower, public' } })
      const [row] = await em.select({
        text: "select current_setting('search_path') as path, current_schema() as schema",
        params: [],
      })
      // A plain name folded to lower case and a quoted one kept, as `set_config` reads them.
      expect(row).toEqual({ path: 'ls_lower, "LS_Upper", ls_lower, public', schema: 'ls_lower' })
    } finally {
      await tc.end()
      await db.sql.unsafe('drop schema "LS_Upper"; drop schema ls_lower').catch(() => {})
    }
  })
})

describe('pg, statements named (prepare: true)', () => {
  test('reads go in a transaction of their own to carry the settings, in one round trip', async () => {
    await db.sql.unsafe('truncate ls_note')
    const tc = db.client('pg', { max: 1, pg: { options: `-c role=${login}` } })
    try {
      const root = await EntityManager.connect(tc.client, { prepare: true })
      const em = root.fork({ localSettings: { 'app.tenant_id': 'n' } })
      em.create('ls_note', { body: 'named' })
      expect((await em.flush()).roundTrips).toBe(1)
      for (let k = 0; k < 2; k++) {
        const reading = root.fork({ localSettings: { 'app.tenant_id': 'n' } })
        const { result, count } = await tc.counter.measure(() =>
          Promise.all([reading.find('ls_note', {}), reading.find('ls_note', { body: 'named' })]),
        )
        expect(result.map((rows) => rows.map((n) => n['body']))).toEqual([['named'], ['named']])
        expect(count.roundTrips).toBe(1)
      }
      expect(await root.fork({ localSettings: { 'app.tenant_id': 'm' } }).find('ls_note', {})).toEqual([])
    } finally {
      await tc.end()
    }
  })
})
