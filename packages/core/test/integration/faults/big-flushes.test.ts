import { EntityManager, type FlushReport, type PipelineMode } from '@pipeflush/core'
import type { DriverName, TestClient } from '@pipeflush/testkit'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { settleWithin } from './support.ts'

const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']
const TABLES = 150

beforeAll(async () => {
  const wide = Array.from(
    { length: TABLES },
    (_, i) => `create table many.t${i} (id bigserial primary key, v int not null);`,
  )
  await db.sql.unsafe(`
    create schema many; ${wide.join('\n')}
    create table pair (id int8 primary key, v text not null, version int not null default 1);
    create table bulk (id bigserial primary key, driver text not null, a int not null, b text not null, c timestamptz not null);
  `)
})

/** A pool of `driver` whose connections use the schema `many`. */
function openMany(driver: DriverName) {
  return db.client(driver, {
    max: 1,
    postgresJs: { connection: { search_path: 'many' } },
    pg: { options: '-c search_path=many' },
  })
}

/** `report.roundTrips` must be what the socket counted. */
async function counted(c: TestClient, flush: () => Promise<FlushReport>): Promise<FlushReport> {
  c.counter.reset()
  const report = (await settleWithin(flush(), 60_000)).value!
  expect(c.counter.read().roundTrips, 'round trips counted at the socket').toBe(report.roundTrips)
  return report
}

describe.each(TEST_DRIVERS.flatMap((driver) => modes.map((mode) => [driver, mode] as const)))(
  '%s, %s',
  (driver, mode) => {
    test(`${TABLES} statements in one flush (one insert per table), twice: new statement shapes then known ones`, async () => {
      const c = openMany(driver)
      const root = await EntityManager.connect(c.client, { pipeline: mode, idBlockSize: 10 })
      const count = async () => {
        const [row] = await db.sql.unsafe<{ n: number; s: number }[]>(
          `select count(*)::int as n, coalesce(sum(v), 0)::int as s from (${Array.from({ length: TABLES }, (_, i) => `select v from many.t${i}`).join(' union all ')}) x`,
        )
        return row!
      }
      const before = await count()
      for (const round of [1, 2]) {
        const em = root.fork()
        for (let i = 0; i < TABLES; i++) em.create(`t${i}`, { v: round * 1000 + i })
        const report = await counted(c, () => em.flush())
        // The ids were fetched when connecting; new statement shapes cost nothing extra.
        expect(report).toMatchObject({ statements: TABLES, inserted: TABLES, idFetch: false })
        const trips = mode === 'burst' ? 1 : mode === 'waves' ? 2 + report.waves : 2 + TABLES
        expect(report.roundTrips).toBe(trips)
      }
      const sum = (round: number) => TABLES * round * 1000 + ((TABLES - 1) * TABLES) / 2
      expect(await count()).toEqual({ n: before.n + 2 * TABLES, s: before.s + sum(1) + sum(2) })
    })

    test(`the last of ${TABLES} statements failing rolls back the whole flush`, async () => {
      const c = openMany(driver)
      const root = await EntityManager.connect(c.client, { pipeline: mode, idBlockSize: 10 })
      for (let round = 0; round < 2; round++) {
        const warm = root.fork()
        for (let i = 0; i < TABLES; i++) warm.create(`t${i}`, { v: -1 })
        await warm.flush()
      }
      const before = await db.sql.unsafe<{ n: number }[]>('select count(*)::int as n from many.t0')
      const em = root.fork()
      // Statements go in table-key order (t0, t1, t10, t100...): t99 is the last.
      for (let i = 0; i < TABLES; i++) em.create(`t${i}`, { v: i === 99 ? null : 7 }) // violates NOT NULL
      const error = await em.flush().catch((e: unknown) => e)
      expect(error).toMatchObject({ code: 'CONSTRAINT_VIOLATION', table: 't99' })
      const after = await db.sql.unsafe<{ n: number }[]>('select count(*)::int as n from many.t0')
      expect(after[0]!.n).toBe(before[0]!.n)
    })

    test('40,000 rows x 2 columns in one statement each (insert, update, delete): 80,000 values, beyond the 65,535 bind parameters of a VALUES list', async () => {
      const c = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(c.client, {
        pipeline: mode,
        versionColumn: 'version',
        flushTimeoutMs: 60_000,
      })
      const base = (TEST_DRIVERS.indexOf(driver) * modes.length + modes.indexOf(mode)) * 1_000_000
      const n = 40_000
      const em = root.fork()
      for (let i = 0; i < n; i++) em.create('pair', { id: base + i, v: `v${i}` })
      const inserted = await counted(c, () => em.flush())
      expect(inserted).toMatchObject({ statements: 1, inserted: n })
      const edit = root.fork()
      const rows = await edit.find('pair', { id: Array.from({ length: n }, (_, i) => base + i) })
      expect(rows).toHaveLength(n)
      for (const r of rows) r['v'] = `${String(r['v'])}!`
      const updated = await counted(c, () => edit.flush())
      expect(updated).toMatchObject({ statements: 1, updated: n })
      const [check] = await db.sql<{ n: number; bang: number; v2: number }[]>`
      select count(*)::int as n, count(*) filter (where v like '%!')::int as bang, count(*) filter (where version = 2)::int as v2
      from pair where id >= ${base} and id < ${base + n}`
      expect(check).toEqual({ n, bang: n, v2: n })
      for (const r of rows) edit.remove(r)
      const deleted = await counted(c, () => edit.flush())
      expect(deleted).toMatchObject({ statements: 1, deleted: n })
      const [gone] = await db.sql<
        { n: number }[]
      >`select count(*)::int as n from pair where id >= ${base} and id < ${base + n}`
      expect(gone?.n).toBe(0)
    })
  },
)

test.each(TEST_DRIVERS)(
  '%s: 100,000 new rows in one table in one flush, then all of them changed in another, stay within a memory bound (heap +400 MB, RSS +800 MB)',
  async (driver) => {
    const c = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(c.client, { pipeline: 'burst', flushTimeoutMs: 60_000 })
    const warm = root.fork()
    warm.create('bulk', { driver, a: 0, b: 'warm', c: new Date(0) })
    await warm.flush()
    global.gc?.()
    const before = process.memoryUsage()
    let peakHeap = before.heapUsed
    let peakRss = before.rss
    const sample = setInterval(() => {
      const m = process.memoryUsage()
      peakHeap = Math.max(peakHeap, m.heapUsed)
      peakRss = Math.max(peakRss, m.rss)
    }, 5)
    const started = performance.now()
    let updatedMs = 0
    try {
      const em = root.fork()
      const at = new Date('2026-01-01T00:00:00Z')
      const made = Array.from({ length: 100_000 }, (_, i) =>
        em.create('bulk', { driver, a: i, b: `row ${i} of the bulk load`, c: at }),
      )
      const report = await counted(c, () => em.flush())
      // The id fetch, then the flush: its 100,000 rows go as COPY, whose data postgres.js writes when
      // the server asks for it (one round trip more).
      const trips = 2 + (driver === 'postgres.js' ? 1 : 0)
      expect(report).toMatchObject({ statements: 1, inserted: 100_000, idFetch: true, roundTrips: trips })
      expect(em.plan().waves).toEqual([])
      // Every one of them changed, two columns: one UPDATE of 100,000 rows, one round trip.
      const updateStarted = performance.now()
      for (let i = 0; i < 100_000; i++) {
        const entity = made[i]!
        entity['a'] = -i - 1
        entity['b'] = `row ${i} changed`
      }
      const updated = await counted(c, () => em.flush())
      updatedMs = performance.now() - updateStarted
      expect(updated).toMatchObject({ statements: 1, updated: 100_000, inserted: 0, roundTrips: 1 })
    } finally {
      clearInterval(sample)
    }
    const m = process.memoryUsage()
    peakHeap = Math.max(peakHeap, m.heapUsed)
    peakRss = Math.max(peakRss, m.rss)
    const mb = (bytes: number) => Math.round(bytes / 2 ** 20)
    console.log(
      `[big flush, ${driver}] 100,000 rows: ${Math.round(performance.now() - started - updatedMs)} ms (create + flush), changed: ${Math.round(updatedMs)} ms (assign + flush), peak heap +${mb(peakHeap - before.heapUsed)} MB, peak RSS +${mb(peakRss - before.rss)} MB`,
    )
    expect(mb(peakHeap - before.heapUsed)).toBeLessThan(400)
    expect(mb(peakRss - before.rss)).toBeLessThan(800)
    const [row] = await db.sql<
      { n: number; s: string }[]
    >`select count(*)::int as n, sum(a)::text as s from bulk where b like '% changed' and driver = ${driver}`
    expect(row).toEqual({ n: 100_000, s: String(-(100_000 * 100_001) / 2) })
  },
)
