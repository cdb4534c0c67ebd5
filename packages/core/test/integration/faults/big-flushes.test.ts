import { EntityManager, type PipelineMode } from '@pipeflush/core'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
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
    create table bulk (id bigserial primary key, a int not null, b text not null, c timestamptz not null);
  `)
})

describe.each(modes)('%s', (mode) => {
  test(`${TABLES} statements in one flush (one insert per table), twice: cold then warm`, async () => {
    const { sql } = db.connect({ max: 1, connection: { search_path: 'many' } })
    const root = await EntityManager.connect(sql, { pipeline: mode, idBlockSize: 10 })
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
      const report = (await settleWithin(em.flush(), 30_000)).value!
      expect(report).toMatchObject({ statements: TABLES, inserted: TABLES })
      if (mode === 'burst') expect(report.roundTrips).toBe(round === 1 ? 2 : 1) // the id fetch, then none
    }
    const sum = (round: number) => TABLES * round * 1000 + ((TABLES - 1) * TABLES) / 2
    expect(await count()).toEqual({ n: before.n + 2 * TABLES, s: before.s + sum(1) + sum(2) })
  })

  test(`a statement failing among ${TABLES} (beyond max_pipeline, where burst sends the rest as one simple query) rolls back the whole flush`, async () => {
    const { sql } = db.connect({ max: 1, connection: { search_path: 'many' } })
    const root = await EntityManager.connect(sql, { pipeline: mode, idBlockSize: 10 })
    for (let round = 0; round < 2; round++) {
      const warm = root.fork()
      for (let i = 0; i < TABLES; i++) warm.create(`t${i}`, { v: -1 })
      await warm.flush()
    }
    const before = await db.sql.unsafe<{ n: number }[]>('select count(*)::int as n from many.t0')
    const em = root.fork()
    // Statements go in table-key order (t0, t1, t10, t100...): t99 is the last, in burst's overflow part.
    for (let i = 0; i < TABLES; i++) em.create(`t${i}`, { v: i === 99 ? null : 7 }) // violates NOT NULL
    const error = await em.flush().catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'CONSTRAINT_VIOLATION', table: 't99' })
    const after = await db.sql.unsafe<{ n: number }[]>('select count(*)::int as n from many.t0')
    expect(after[0]!.n).toBe(before[0]!.n)
  })

  test('40,000 rows x 2 columns in one statement each (insert, update, delete): 80,000 values, beyond the 65,535 bind parameters of a VALUES list', async () => {
    const { sql } = db.connect({ max: 1 })
    const root = await EntityManager.connect(sql, {
      pipeline: mode,
      versionColumn: 'version',
      flushTimeoutMs: 60_000,
    })
    const base = modes.indexOf(mode) * 1_000_000
    const n = 40_000
    const em = root.fork()
    for (let i = 0; i < n; i++) em.create('pair', { id: base + i, v: `v${i}` })
    const inserted = (await settleWithin(em.flush(), 60_000)).value!
    expect(inserted).toMatchObject({ statements: 1, inserted: n })
    const edit = root.fork()
    const rows = await edit.find('pair', { id: Array.from({ length: n }, (_, i) => base + i) })
    expect(rows).toHaveLength(n)
    for (const r of rows) r['v'] = `${String(r['v'])}!`
    const updated = (await settleWithin(edit.flush(), 60_000)).value!
    expect(updated).toMatchObject({ statements: 1, updated: n })
    const [check] = await db.sql<{ n: number; bang: number; v2: number }[]>`
      select count(*)::int as n, count(*) filter (where v like '%!')::int as bang, count(*) filter (where version = 2)::int as v2
      from pair where id >= ${base} and id < ${base + n}`
    expect(check).toEqual({ n, bang: n, v2: n })
    for (const r of rows) edit.remove(r)
    const deleted = (await settleWithin(edit.flush(), 60_000)).value!
    expect(deleted).toMatchObject({ statements: 1, deleted: n })
    const [gone] = await db.sql<
      { n: number }[]
    >`select count(*)::int as n from pair where id >= ${base} and id < ${base + n}`
    expect(gone?.n).toBe(0)
  })
})

test('100,000 new rows in one table in one flush stay within a memory bound (heap +400 MB, RSS +800 MB)', async () => {
  const { sql } = db.connect({ max: 1 })
  const root = await EntityManager.connect(sql, { pipeline: 'burst', flushTimeoutMs: 60_000 })
  const warm = root.fork()
  warm.create('bulk', { a: 0, b: 'warm', c: new Date(0) })
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
  try {
    const em = root.fork()
    const at = new Date('2026-01-01T00:00:00Z')
    for (let i = 0; i < 100_000; i++) em.create('bulk', { a: i, b: `row ${i} of the bulk load`, c: at })
    const report = (await settleWithin(em.flush(), 60_000)).value!
    expect(report).toMatchObject({ statements: 1, inserted: 100_000, idFetch: true })
  } finally {
    clearInterval(sample)
  }
  const m = process.memoryUsage()
  peakHeap = Math.max(peakHeap, m.heapUsed)
  peakRss = Math.max(peakRss, m.rss)
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20)
  console.log(
    `[big flush] 100,000 rows: ${Math.round(performance.now() - started)} ms (create + flush), peak heap +${mb(peakHeap - before.heapUsed)} MB, peak RSS +${mb(peakRss - before.rss)} MB`,
  )
  expect(mb(peakHeap - before.heapUsed)).toBeLessThan(400)
  expect(mb(peakRss - before.rss)).toBeLessThan(800)
  const [row] = await db.sql<
    { n: number; s: string }[]
  >`select count(*)::int as n, sum(a)::text as s from bulk where b <> 'warm'`
  expect(row).toEqual({ n: 100_000, s: String((99_999 * 100_000) / 2) })
})
