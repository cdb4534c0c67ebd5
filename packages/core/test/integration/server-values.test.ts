import {
  EntityManager,
  type EntityManagerOptions,
  isPipeflushError,
  type PipelineMode,
} from '@pipeflush/core'
import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']
const drivers: DriverName[] = [...TEST_DRIVERS, 'pg-simple']

/** Every kind of value the server fills: defaults, identity, serial, generated, plain NULL. */
const DDL = `
create table account (
  id bigserial primary key,
  name text not null,
  created_at timestamptz not null default now(),
  status text not null default 'new',
  seq int generated always as identity,
  ticket serial,
  name_upper text generated always as (upper(name)) stored,
  note text,
  tags text[] not null default '{a,b}'
);
create table entry (
  id bigserial primary key,
  account_id bigint not null references account (id),
  amount numeric not null check (amount > -1000),
  posted_on date not null default current_date,
  doubled numeric generated always as (amount * 2) stored
);
create table reading (id bigserial primary key, device text not null, at timestamptz not null default now());
create table doc (
  id bigserial primary key,
  body text not null,
  len int generated always as (length(body)) stored,
  version int not null default 1
);
`

function schemaOf(driver: DriverName, mode: PipelineMode): string {
  return `sv_${driver.replace(/[^a-z]/g, '')}_${mode}`
}

beforeAll(async () => {
  for (const driver of drivers) {
    for (const mode of modes) {
      const schema = schemaOf(driver, mode)
      await db.sql.unsafe(`create schema ${schema}; set search_path = ${schema}; ${DDL}; reset search_path;`)
    }
  }
})

async function setup(driver: DriverName, mode: PipelineMode, options: EntityManagerOptions = {}) {
  const schema = schemaOf(driver, mode)
  const c = db.client(driver, {
    max: 1,
    postgresJs: { connection: { search_path: schema } },
    pg: { options: `-c search_path=${schema}` },
  })
  const root = await EntityManager.connect(c.client, { pipeline: mode, idBlockSize: 100, ...options })
  return { ...c, root }
}

/** The row as the database holds it, read by a fresh unit of work. */
async function stored(root: EntityManager, table: string, id: unknown) {
  return { ...(await root.fork().load(table, id)) }
}

const expectedTrips = (mode: PipelineMode, statements: number, waves: number) =>
  mode === 'burst' ? 1 : mode === 'waves' ? 2 + waves : 2 + statements

describe.each(drivers)('%s', (driver) => {
  test.each(modes)(
    '%s: after a flush, entities hold what the server filled, at the same round trips',
    async (mode) => {
      const { root, counter } = await setup(driver, mode)
      const em = root.fork()
      const ada = em.create('account', { name: 'Ada' })
      const entry = em.create('entry', { account_id: ada, amount: '12.5' })
      counter.reset()
      const report = await em.flush()
      expect(counter.read().roundTrips).toBe(report.roundTrips)
      expect(report.roundTrips).toBe(expectedTrips(mode, report.statements, report.waves))
      expect(report.statements).toBe(2)
      // Every column reads what the database stored: defaults, identity, serial, generated, NULL.
      expect({ ...ada }).toEqual(await stored(root, 'account', ada.id))
      expect({ ...entry }).toEqual(await stored(root, 'entry', entry.id))
      expect(ada.created_at).toBeInstanceOf(Date)
      expect(ada).toMatchObject({ status: 'new', name_upper: 'ADA', note: null, tags: ['a', 'b'] })
      expect(typeof ada.seq).toBe('number')
      expect(typeof ada.ticket).toBe('number')
      expect(entry).toMatchObject({ doubled: '25.0' })
      expect(entry.posted_on).toBeDefined()
      // Nothing is left to write: the values read back are the snapshot too.
      expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })

      // An update reads back the generated columns it changed, still at the same round trips.
      ada.name = 'Grace'
      entry.amount = '4'
      counter.reset()
      const update = await em.flush()
      expect(counter.read().roundTrips).toBe(update.roundTrips)
      expect(update.roundTrips).toBe(expectedTrips(mode, update.statements, update.waves))
      expect(ada.name_upper).toBe('GRACE')
      expect(entry.doubled).toBe('8')
      expect({ ...ada }).toEqual(await stored(root, 'account', ada.id))
      expect({ ...entry }).toEqual(await stored(root, 'entry', entry.id))
      expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
      // Mutable values read back are not shared between the entity and its snapshot.
      ;(ada.tags as string[]).push('c')
      expect(em.pending.updates).toBe(1)
    },
  )

  test.each(modes)('%s: a failed flush leaves them as they were; the retry fills them', async (mode) => {
    const { root } = await setup(driver, mode)
    const em = root.fork()
    const ada = em.create('account', { name: 'Ada' })
    const entry = em.create('entry', { account_id: ada, amount: '-5000' })
    const error = await em.flush().catch((e: unknown) => e)
    expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION')).toBe(true)
    expect(ada.created_at).toBeUndefined()
    expect(ada.seq).toBeUndefined()
    expect(entry.doubled).toBeUndefined()
    expect(em.stateOf(ada)).toBe('new')
    entry.amount = '1'
    await em.flush()
    expect({ ...ada }).toEqual(await stored(root, 'account', ada.id))
    expect(entry.doubled).toBe('2')
  })
})

describe('with optimistic locking', () => {
  test.each(drivers)(
    '%s: an update returning generated columns still fails a stale row with OPTIMISTIC_LOCK, and reads back the version',
    async (driver) => {
      const { root } = await setup(driver, 'burst', { versionColumn: 'version' })
      const em = root.fork()
      const doc = em.create('doc', { body: 'abc' })
      await em.flush()
      expect(doc).toMatchObject({ len: 3, version: 1 })
      const mine = root.fork()
      const theirs = root.fork()
      const a = await mine.load('doc', doc.id)
      const b = await theirs.load('doc', doc.id)
      b.body = 'theirs'
      await theirs.flush()
      expect(b).toMatchObject({ len: 6, version: 2 })
      a.body = 'mine!'
      const error = await mine.flush().catch((e: unknown) => e)
      expect(isPipeflushError(error, 'OPTIMISTIC_LOCK')).toBe(true)
      expect(a).toMatchObject({ len: 3, version: 1 })
      expect(await stored(root, 'doc', doc.id)).toMatchObject({ body: 'theirs', len: 6, version: 2 })
    },
  )
})

describe('turned off', () => {
  test('per table: that table sends its insert without returning, the others still read back', async () => {
    const { root, counter } = await setup('postgres.js', 'burst', { serverValues: { reading: false } })
    const em = root.fork()
    const r = em.create('reading', { device: 'd1' })
    const a = em.create('account', { name: 'Ada' })
    const plan = em.plan()
    const statements = plan.waves.flat()
    expect(statements.find((s) => s.table === 'reading')?.returning).toBeUndefined()
    expect(statements.find((s) => s.table === 'reading')?.sql).not.toContain('returning')
    expect(statements.find((s) => s.table === 'account')?.returning).toEqual([
      'id',
      'created_at',
      'status',
      'seq',
      'ticket',
      'name_upper',
      'note',
      'tags',
    ])
    counter.reset()
    const report = await em.flush()
    expect(counter.read().roundTrips).toBe(report.roundTrips)
    expect(report.roundTrips).toBe(1)
    expect(r.at).toBeUndefined()
    expect(a.created_at).toBeInstanceOf(Date)
  })

  test('everywhere: what reading back costs, in bytes received, for 100 rows', async () => {
    const received: Record<string, number> = {}
    for (const serverValues of [true, false]) {
      const { root, counter } = await setup('pg', 'burst', { serverValues })
      await root.fork().flush()
      const em = root.fork()
      for (let i = 0; i < 100; i++) em.create('reading', { device: `d${i}` })
      counter.reset()
      const report = await em.flush()
      expect(report.roundTrips).toBe(1)
      received[String(serverValues)] = counter.read().bytesIn
    }
    // Each row comes back as its id and timestamp texts: about 60 bytes a row.
    expect(received.true! - received.false!).toBeGreaterThan(100 * 40)
    expect(received.true! - received.false!).toBeLessThan(100 * 80)
  })

  test('a bad serverValues option is INVALID_CONFIG', async () => {
    const c = db.client('postgres.js', { max: 1 })
    for (const serverValues of ['yes', { nope: false }, { reading: 'no' }, [1]]) {
      const error = await EntityManager.connect(c.client, { serverValues } as never).catch((e: unknown) => e)
      expect(isPipeflushError(error, 'INVALID_CONFIG'), String(serverValues)).toBe(true)
    }
  })
})
