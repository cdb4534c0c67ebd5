import { EntityManager, type PipelineMode } from '@pipeflush/core'
import { type DriverName, TEST_DRIVERS, type TestClient, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { counted } from './fixtures/counted.ts'

// Large inserts sent as COPY (`copyRows`), on node-postgres pools with and without `pipeline: true`
// and on postgres.js: the server's answers, errors and all-or-nothing outcome are the same as with
// INSERT. On node-postgres the COPY data leaves in the same write as its message, so a flush costs the
// round trips it costs with INSERT; postgres.js sends it when the server asks, one round trip more
// per COPY.
const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']
const copying = (['pg', 'pg-simple', 'postgres.js'] as const).filter((d) =>
  TEST_DRIVERS.includes(d === 'pg-simple' ? 'pg' : d),
) as DriverName[]

/** The round trips a COPY costs besides its message's: none where the data goes with it. */
function copyTrips(driver: DriverName, copies: number): number {
  return driver === 'postgres.js' ? copies : 0
}
const combos = copying.flatMap((driver) => modes.map((mode) => [driver, mode] as const))

/** Texts COPY's text format reads specially, and some it does not. */
const TRICKY = [
  'tab\there',
  'line\nbreak',
  'carriage\rreturn',
  'back\\slash',
  '\\N',
  '\\.',
  '',
  `it's "quoted"; {a,b}`,
  'ünï 😀',
]

beforeAll(async () => {
  await db.sql.unsafe(`
    create table cp_parent (id bigserial primary key, name text not null);
    create table cp_child (
      id bigserial primary key,
      parent_id bigint not null references cp_parent,
      v text,
      n int not null constraint cp_child_n_check check (n >= 0)
    );
    create table cp_counter (id int primary key, n int not null, version int not null);
    create table cp_secret (id bigserial primary key, v text not null);
    alter table cp_secret enable row level security;
    create table cp_ruled (id bigserial primary key, v text not null);
    create table cp_ruled_log (v text not null);
    create rule cp_ruled_logged as on insert to cp_ruled do also insert into cp_ruled_log values (new.v);
  `)
})

async function connect(c: TestClient, mode: PipelineMode): Promise<EntityManager> {
  return EntityManager.connect(c.client, {
    pipeline: mode,
    copyRows: 3,
    versionColumn: 'version',
    idBlockSize: 1000,
  })
}

/** A unit of work: `parents` new parents with 4 children each (tricky values), tagged `tag`. */
function create(em: EntityManager, tag: string, parents: number) {
  const made = []
  for (let p = 0; p < parents; p++) {
    const parent = em.create('cp_parent', { name: `${tag}-${p}` })
    for (let k = 0; k < 4; k++) {
      const i = p * 4 + k
      made.push(
        em.create('cp_child', {
          parent_id: parent,
          v: i % 5 === 4 ? null : `${tag}:${TRICKY[i % TRICKY.length]}`,
          n: i,
        }),
      )
    }
  }
  return made
}

async function stored(tag: string) {
  const parents = await db.sql<
    { n: number }[]
  >`select count(*)::int as n from cp_parent where name like ${`${tag}-%`}`
  const children = await db.sql<{ v: string | null; n: number }[]>`
    select c.v, c.n from cp_child c join cp_parent p on p.id = c.parent_id
    where p.name like ${`${tag}-%`} order by c.n`
  return { parents: parents[0]?.n, children }
}

describe.each(combos)('%s, %s', (driver, mode) => {
  const tag = (what: string) => `${driver}-${mode}-${what}`

  test('new parents and children as COPY, with an update and a delete: stored as sent, round trips as with INSERT', async () => {
    const c = db.client(driver, { max: 1 })
    const root = await connect(c, mode)
    const setup = root.fork()
    const counter = setup.create('cp_counter', {
      id: 100 + combos.findIndex(([d, m]) => d === driver && m === mode),
      n: 0,
      version: 1,
    })
    const doomed = setup.create('cp_parent', { name: tag('doomed') })
    await setup.flush()

    const em = root.fork()
    const children = create(em, tag('new'), 5)
    const edit = await em.findOne('cp_counter', { id: counter['id'] })
    edit!['n'] = 1
    const gone = await em.findOne('cp_parent', { id: doomed['id'] })
    em.remove(gone!)
    const plan = em.plan()
    expect(
      plan.waves
        .flat()
        .map((s) => `${s.kind} ${s.table}${s.copy ? ' (copy)' : ''}`)
        .sort(),
    ).toEqual(['delete cp_parent', 'insert cp_child (copy)', 'insert cp_parent (copy)', 'update cp_counter'])
    const report = await counted(c.counter, () => em.flush())
    // Ids came with the connect (a block of 1,000): no fetch.
    const trips =
      (mode === 'burst' ? 1 : 2 + (mode === 'waves' ? report.waves : report.statements)) +
      copyTrips(driver, 2)
    expect(report).toMatchObject({ inserted: 25, updated: 1, deleted: 1, idFetch: false, roundTrips: trips })
    const { parents, children: rows } = await stored(tag('new'))
    expect(parents).toBe(5)
    expect(rows).toEqual(children.map((child) => ({ v: child['v'], n: child['n'] })))
    expect(children.every((child) => em.stateOf(child) === 'managed')).toBe(true)
    expect((await em.flush()).statements).toBe(0)
    const [after] = await db.sql<
      { n: number; version: number }[]
    >`select n, version from cp_counter where id = ${counter['id'] as number}`
    expect(after).toEqual({ n: 1, version: 2 })
  })

  test('a row the server rejects inside the COPY data: nothing committed, the unit of work kept, fixed and flushed again', async () => {
    const c = db.client(driver, { max: 1 })
    const root = await connect(c, mode)
    const em = root.fork()
    const children = create(em, tag('bad'), 3)
    children[children.length - 1]!['n'] = -1 // the last row of the COPY breaks the check constraint
    // The plan's shape and the rows' values (the ids fetched for this flush stay with the rows).
    const shape = () => ({
      statements: em.plan().waves.map((w) => w.map((s) => [s.kind, s.table, s.copy, s.rowCount])),
      values: children.map((child) => [child['v'], child['n']]),
    })
    const planned = shape()
    const error = await counted(c.counter, () => em.flush()).catch((e: unknown) => e)
    expect(error).toMatchObject({
      code: 'CONSTRAINT_VIOLATION',
      table: 'cp_child',
      constraint: 'cp_child_n_check',
      sqlState: '23514',
    })
    expect(await stored(tag('bad'))).toEqual({ parents: 0, children: [] })
    expect(children.every((child) => em.stateOf(child) === 'new')).toBe(true)
    expect(shape()).toEqual(planned)
    children[children.length - 1]!['n'] = 11
    await em.flush()
    const { parents, children: rows } = await stored(tag('bad'))
    expect([parents, rows.length]).toEqual([3, 12])
  })

  test('a key that exists already: the COPY fails with the unique violation, nothing committed', async () => {
    const c = db.client(driver, { max: 1 })
    const root = await connect(c, mode)
    const first = root.fork()
    const parent = first.create('cp_parent', { name: tag('dup-0') })
    await first.flush()
    const em = root.fork()
    for (let i = 0; i < 4; i++) em.create('cp_parent', { name: tag(`dup-${i + 1}`) })
    em.create('cp_parent', { id: parent['id'], name: tag('dup-again') })
    const error = await em.flush().catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'CONSTRAINT_VIOLATION', table: 'cp_parent', sqlState: '23505' })
    const [row] = await db.sql<
      { n: number }[]
    >`select count(*)::int as n from cp_parent where name like ${`${tag('dup')}-%`}`
    expect(row?.n).toBe(1)
  })

  test('a statement failing before the COPY: its data is dropped by the server, the connection serves the next flush', async () => {
    const c = db.client(driver, { max: 1 })
    const root = await connect(c, mode)
    const id = 200 + combos.findIndex(([d, m]) => d === driver && m === mode)
    const setup = root.fork()
    setup.create('cp_counter', { id, n: 0, version: 1 })
    await setup.flush()
    const em = root.fork()
    const stale = em.merge('cp_counter', { id, n: 0, version: 7 }) // the row is at version 1
    stale['n'] = 5
    create(em, tag('stale'), 2)
    const error = await em.flush().catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'OPTIMISTIC_LOCK', table: 'cp_counter' })
    expect(await stored(tag('stale'))).toEqual({ parents: 0, children: [] })
    const next = root.fork()
    create(next, tag('after'), 2)
    const report = await counted(c.counter, () => next.flush())
    expect(report.inserted).toBe(10)
    expect((await stored(tag('after'))).parents).toBe(2)
  })
})

test.each(copying)('%s: never COPY into a table with row-level security or rewrite rules', async (driver) => {
  const c = db.client(driver, { max: 1 })
  const root = await EntityManager.connect(c.client, { copyRows: 1 })
  expect(root.schema.tables.get('cp_secret')?.copyable).toBe(false)
  expect(root.schema.tables.get('cp_ruled')?.copyable).toBe(false)
  expect(root.schema.tables.get('cp_parent')?.copyable).toBe(true)
  const em = root.fork()
  for (let i = 0; i < 3; i++) {
    em.create('cp_secret', { v: `${driver} ${i}` })
    em.create('cp_ruled', { v: `${driver} ${i}` })
  }
  expect(
    em
      .plan()
      .waves.flat()
      .map((s) => s.copy),
  ).toEqual([undefined, undefined])
  await em.flush()
  const [log] = await db.sql<
    { n: number }[]
  >`select count(*)::int as n from cp_ruled_log where v like ${`${driver} %`}`
  expect(log?.n).toBe(3) // the rule ran: the rows went as INSERT
})

test.each(copying)(
  '%s: four flushes with COPY at once from a fresh pool of 4, every mode: all stored, the reports sum to the socket count',
  async (driver) => {
    const { schema } = await connect(db.client(driver, { max: 1 }), 'burst')
    for (const mode of modes) {
      // The schema given: connecting opens no connection, the flushes open them all.
      const c = db.client(driver, { max: 4 })
      const root = await EntityManager.connect(c.client, {
        schema,
        pipeline: mode,
        copyRows: 3,
        versionColumn: 'version',
        prepare: true,
      })
      c.counter.reset()
      const made = await Promise.all(
        [0, 1, 2, 3].map(async (i) => {
          const em = root.fork()
          const children = create(em, `${driver}-${mode}-many-${i}`, 3 + i)
          return { children, report: await em.flush() }
        }),
      )
      const reports = made.map((m) => m.report)
      expect(c.counter.read().roundTrips, mode).toBe(reports.reduce((n, r) => n + r.roundTrips, 0))
      expect(reports.filter((r) => r.connected).length, mode).toBeGreaterThanOrEqual(1)
      for (const [i, { children }] of made.entries()) {
        const { parents, children: rows } = await stored(`${driver}-${mode}-many-${i}`)
        expect([parents, rows], `${mode} ${i}`).toEqual([
          3 + i,
          children.map((child) => ({ v: child['v'], n: child['n'] })),
        ])
      }
    }
  },
)

test.each(copying)(
  '%s: a connection opened before pipeflush took the client: a COPY flush still reports what the socket counted',
  async (driver) => {
    const c = db.client(driver, { max: 1 })
    // The application's own query opens the connection first: its socket may not be metered (then
    // the flush counts its own waits, COPY's included).
    if (driver === 'postgres.js')
      await (c.client as unknown as (s: TemplateStringsArray) => Promise<unknown>)`select 1`
    else await (c.client as unknown as { query(text: string): Promise<unknown> }).query('select 1')
    const root = await connect(c, 'burst')
    for (let round = 0; round < 2; round++) {
      const em = root.fork()
      create(em, `${driver}-before-${round}`, 3)
      const report = await counted(c.counter, () => em.flush())
      expect(report.roundTrips).toBe(1 + copyTrips(driver, 2))
      expect((await stored(`${driver}-before-${round}`)).parents).toBe(3)
    }
  },
)
