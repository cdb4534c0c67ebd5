import { EntityManager } from '@pipeflush/core'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterEach, beforeAll, expect, test } from 'vitest'
import { expectPoolFree, settleWithin, sleep, waitUntil, watchProcess } from './support.ts'

const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table thing (id bigserial primary key, name text not null);
    create table shape (id bigserial primary key, sides int not null);
    create table blob (id bigserial primary key, body text not null);
    create table pipeflush_flush_log (flush_id uuid primary key, committed boolean not null, at timestamptz not null default now());
  `)
})

afterEach(async () => {
  await db.proxy.clearToxics()
})

async function count(name: string): Promise<number> {
  const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from thing where name = ${name}`
  return row!.n
}

test('a flush waiting for a connection while the connection it waits for is terminated still gets one (postgres.js drops such a waiting reservation)', async () => {
  const watch = watchProcess()
  try {
    const { sql } = db.connect({ max: 1 })
    const root = await EntityManager.connect(sql, { pipeline: 'burst', idBlockSize: 100 })
    const warm = root.fork()
    warm.create('thing', { name: 'warm' })
    await warm.flush()

    await db.proxy.addToxic('timeout', { timeout: 0 }, { stream: 'upstream' })
    const stalled = root.fork({ flushTimeoutMs: 400 })
    stalled.create('thing', { name: 'stalled' })
    const first = stalled.flush()
    first.catch(() => {})
    await sleep(50)
    // This one waits for the only connection, which the first flush's timeout terminates.
    const waiting = root.fork({ flushTimeoutMs: 8000 })
    waiting.create('thing', { name: 'waiting' })
    const second = waiting.flush()
    second.catch(() => {})
    const a = await settleWithin(first, 5000)
    expect(a.error).toMatchObject({ code: 'COMMIT_OUTCOME_UNKNOWN' })
    await db.proxy.clearToxics()
    const b = await settleWithin(second, 10_000)
    expect(b.error, 'the waiting flush gets a connection').toBeUndefined()
    expect(b.ms).toBeLessThan(4000)
    expect(await count('waiting')).toBe(1)
    await expectPoolFree(sql, 1)
    await watch.assertClean()
  } finally {
    watch.dispose()
  }
})

test('statement warming after a cold burst flush is bounded too: a stall there does not keep the connection forever', async () => {
  const watch = watchProcess()
  try {
    const closed: number[] = []
    const { sql } = db.connect({ max: 1, onclose: (id) => closed.push(id) })
    const root = await EntityManager.connect(sql, {
      pipeline: 'burst',
      idBlockSize: 100,
      flushTimeoutMs: 600,
    })
    await db.proxy.setLatency(60)
    const em = root.fork()
    em.create('thing', { name: 'cold' })
    em.create('shape', { sides: 3 })
    const report = await em.flush()
    expect(report.cold).toBe(true) // statements are now prepared in the background, one round trip each
    await db.proxy.addToxic('timeout', { timeout: 0 }, { stream: 'downstream' })
    // The warming stalls; after flushTimeoutMs its connection is terminated (closed while the toxic is on).
    await waitUntil(async () => closed.length > 0, 3000, 'the stalled connection to be terminated')
    await db.proxy.clearToxics()
    await expectPoolFree(sql, 1, 5000)
    const next = root.fork()
    next.create('thing', { name: 'after' })
    expect((await settleWithin(next.flush(), 5000)).error).toBeUndefined()
    expect(await count('after')).toBe(1)
    await watch.assertClean()
  } finally {
    watch.dispose()
  }
})

test('a flush timeout does not fire for a flush that finished: no late terminate, no late error', async () => {
  const watch = watchProcess()
  try {
    const { sql } = db.connect({ max: 1 })
    const root = await EntityManager.connect(sql, { pipeline: 'burst', flushTimeoutMs: 200 })
    for (let i = 0; i < 5; i++) {
      const em = root.fork()
      em.create('thing', { name: `quick-${i}` })
      await em.flush()
    }
    await sleep(400)
    const [row] = await sql`select 1 as one`
    expect(row?.['one']).toBe(1)
    await watch.assertClean()
  } finally {
    watch.dispose()
  }
})

test('a connection cut while the COMMIT still waits in the driver (a 16 MB burst fills the socket) settles at once, not at the timeout', async () => {
  const watch = watchProcess()
  try {
    const { sql } = db.connect({ max: 1 })
    const root = await EntityManager.connect(sql, {
      pipeline: 'burst',
      flushLog: 'pipeflush_flush_log',
      flushTimeoutMs: 10_000,
    })
    for (let i = 0; i < 2; i++) {
      const warm = root.fork()
      warm.create('blob', { body: 'warm' })
      await warm.flush()
    }
    // Slow the upstream so that the socket cannot take the whole write at once (postgres.js then queues
    // the COMMIT behind it), and cut the connection after 100 KB.
    await db.proxy.addToxic('bandwidth', { rate: 500 }, { stream: 'upstream' })
    await db.proxy.addToxic('limit_data', { bytes: 100_000 }, { stream: 'upstream' })
    const em = root.fork()
    em.create('blob', { body: 'x'.repeat(16_000_000) })
    const result = await settleWithin(em.flush(), 12_000)
    await db.proxy.clearToxics()
    expect(result.error).toMatchObject({ code: 'COMMIT_OUTCOME_UNKNOWN' })
    expect(result.ms).toBeLessThan(3000)
    const checker = await EntityManager.connect(db.sql, { flushLog: 'pipeflush_flush_log' })
    expect(await checker.wasCommitted((result.error as { flushId: string }).flushId)).toBe(false)
    const [row] = await db.sql<
      { n: number }[]
    >`select count(*)::int as n from blob where length(body) = 16000000`
    expect(row?.n).toBe(0)
    await expectPoolFree(sql, 1)
    expect((await settleWithin(em.flush(), 10_000)).error).toBeUndefined()
    await watch.assertClean()
  } finally {
    watch.dispose()
  }
})

test('a statement failing in a warm burst makes the pipelined COMMIT answer ROLLBACK: the flush fails and nothing is committed (trap 6)', async () => {
  await db.sql.unsafe('create table uniq (id bigserial primary key, code text not null unique)')
  const { sql } = db.connect({ max: 1 })
  const root = await EntityManager.connect(sql, { pipeline: 'burst', idBlockSize: 100 })
  for (let i = 0; i < 2; i++) {
    const warm = root.fork()
    warm.create('uniq', { code: `warm-${i}` })
    warm.create('thing', { name: `warm-${i}` })
    expect((await warm.flush()).cold).toBe(i === 0)
  }
  const em = root.fork()
  em.create('thing', { name: 'rolled back' })
  em.create('uniq', { code: 'warm-0' }) // duplicate
  const error = await em.flush().catch((e: unknown) => e)
  expect(error).toMatchObject({ code: 'CONSTRAINT_VIOLATION', constraint: 'uniq_code_key' })
  expect(await count('rolled back')).toBe(0)
})
