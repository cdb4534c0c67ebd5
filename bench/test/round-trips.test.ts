// Exact round trips of every series on every driver, counted at the socket (integration project: real
// PostgreSQL, real toxiproxy). Warm flushes, then the cold first flush of a fresh client.
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createSchema } from '../src/env/schema.ts'
import { ALL_SERIES } from '../src/series/index.ts'
import type { SeriesClient, SeriesName } from '../src/series/types.ts'
import { largeWork, matrixWork, type Work } from '../src/workload.ts'

const db = useTestDatabase()
const TABLES = 10
const work = matrixWork(TABLES, 1)

/** Warm round trips per flush of `work` (10 tables x 1 row), the same on both drivers. */
// raw-pg serves only the request scenario (test/request.test.ts), drizzle and pipeflush-drizzle only
// the realistic workload (test/realistic.test.ts).
const expected: Record<Exclude<SeriesName, 'copy' | 'raw-pg' | 'drizzle' | 'pipeflush-drizzle'>, number> = {
  'raw-sequential': TABLES + 2, // BEGIN, each insert, COMMIT
  'raw-string-array': 3, // BEGIN, the inserts pipelined, COMMIT
  'raw-promise-all': 3,
  'pipeflush-off': TABLES + 2,
  'pipeflush-waves': 3, // BEGIN, one wave (no foreign keys), COMMIT
  'pipeflush-burst': 1,
  // outside the CPU cells' turns their tracer provider is not set: they flush as pipeflush-burst
  'pipeflush-burst-traced': 1,
  'pipeflush-burst-tracing-false': 1,
  mikroorm: TABLES + 2,
  'pg-pipeline': 1,
  'raw-pipeline': 1, // pipeflush's statements, BEGIN and COMMIT pipelined
  'raw-simple': 1, // pipeflush's statements in one simple-protocol message
}

const unavailable = new Map<string, string>()
const clients: SeriesClient[] = []

beforeAll(async () => {
  await createSchema(db.sql)
  // Answers come back 5 ms after the request at the earliest, so pipelined writes always go out
  // before any answer arrives and the count cannot depend on the machine's speed.
  await db.proxy.setLatency(5)
  for (const s of ALL_SERIES) {
    const reason = await s.unavailableReason()
    if (reason) unavailable.set(s.id, reason)
  }
})

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()))
  await db.proxy.setLatency(0)
})

async function open(id: string): Promise<SeriesClient> {
  const series = ALL_SERIES.find((s) => s.id === id)
  if (!series) throw new Error(`no series ${id}`)
  const client = await series.open({ url: db.proxiedUrl }, { pool: 1 })
  clients.push(client)
  return client
}

/** Rows in each of `tables`, when they all hold the same number; else throws. */
async function countRows(tables: readonly string[]): Promise<number> {
  const counts = tables.map((t) => `select count(*) as n from ${t}`).join(' union all ')
  const [row] = await db.sql.unsafe<{ lo: string; hi: string }[]>(
    `select min(n) as lo, max(n) as hi from (${counts}) c`,
  )
  if (row?.lo !== row?.hi) throw new Error(`tables hold ${row?.lo} to ${row?.hi} rows`)
  return Number(row?.lo)
}

/** Round trips of one flush of `w`, after `flush` already ran once on this client. */
async function warmRoundTrips(client: SeriesClient, w: Work): Promise<number> {
  client.counter.reset()
  await client.flush(w)
  return client.counter.read().roundTrips
}

const warmSeries = ALL_SERIES.filter((s) => s.name !== 'copy')

describe(`warm flush of ${TABLES} tables x 1 row: exact round trips at the socket`, () => {
  for (const series of warmSeries) {
    const trips = expected[series.name as keyof typeof expected]
    test(`${series.id}: ${trips}`, async (ctx) => {
      const reason = unavailable.get(series.id)
      if (reason) ctx.skip(reason)
      const client = await open(series.id)
      await db.sql.unsafe(work.tables.map((t) => `truncate ${t}`).join(';'))
      await client.flush(work) // cold: prepares statements, fetches ids
      await client.flush(work) // warm-up
      for (let i = 0; i < 3; i++) {
        const counted = await warmRoundTrips(client, work)
        const report = client.lastReport?.()
        // pipeflush takes one more round trip when its id pool runs short, and says so
        expect(counted).toBe(trips + (report?.idFetch ? 1 : 0))
        if (report) expect(report.roundTrips).toBe(counted)
      }
      // Every row landed, in every table: 5 flushes of one row each.
      expect(await countRows(work.tables)).toBe(5)
    })
  }
})

describe('cold flush (first flush on a fresh connection)', () => {
  test('raw-promise-all describes each insert first: 2 + 2 per table', async (ctx) => {
    if (unavailable.has('raw-promise-all')) ctx.skip(unavailable.get('raw-promise-all'))
    const client = await open('raw-promise-all')
    client.counter.reset()
    await client.flush(work)
    // BEGIN, then each cold insert is described (1 round trip) before it executes (1 more), then COMMIT
    expect(client.counter.read().roundTrips).toBe(2 + 2 * TABLES)
  })

  for (const id of ['pipeflush-burst (postgres.js)', 'pipeflush-burst (pg)']) {
    test(`${id}: statements new to the connection cost nothing extra; the report says what the socket saw`, async (ctx) => {
      if (unavailable.has(id)) ctx.skip(unavailable.get(id))
      const client = await open(id)
      client.counter.reset()
      await client.flush(work)
      const report = client.lastReport?.()
      expect(report?.roundTrips).toBe(client.counter.read().roundTrips)
      // Opening the series' client connected it: no round trip of this flush was spent connecting.
      expect(report?.connectRoundTrips).toBe(0)
      expect((report?.roundTrips ?? 0) - (report?.idFetch ? 1 : 0)).toBe(1)
    })
  }
})

describe('large flush and copy', () => {
  // COPY waits twice (for CopyInResponse, then for CommandComplete); the counter sees a third write
  // because postgres.js 3.4.9 writes a CopyFail after the COPY completed (its stream's destroy; the
  // server ignores CopyFail outside COPY), so nothing waits on it.
  test('copy of 10,000 rows: 3 counted round trips, every row written', async () => {
    const client = await open('copy')
    const big = largeWork(10_000)
    await client.flush(big)
    expect(await warmRoundTrips(client, big)).toBe(3)
    expect(await countRows(big.tables)).toBe(20_000)
  })

  test('pg-pipeline of 10,000 rows in one statement: 1 round trip', async () => {
    const client = await open('pg-pipeline')
    const big = largeWork(10_000)
    await db.sql.unsafe(`truncate ${big.tables[0]}`)
    await client.flush(big)
    expect(await warmRoundTrips(client, big)).toBe(1)
    expect(await countRows(big.tables)).toBe(20_000)
  })
})
