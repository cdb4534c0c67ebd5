// vitest bench (Vitest 5: benchmarks are tests using the `bench` fixture, run by `vitest bench` in a
// "(bench)" variant of the project): a small subset of the benchmark for CI. Timings are reported,
// never asserted; round trips are asserted exactly, for every timed flush.
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createSchema } from './src/env/schema.ts'
import { ALL_SERIES } from './src/series/index.ts'
import type { SeriesClient } from './src/series/types.ts'
import { matrixWork } from './src/workload.ts'

const db = useTestDatabase()
const LATENCY_MS = 2
const TABLES = 10
const work = matrixWork(TABLES, 1)

/** Warm round trips per flush of 10 tables x 1 row, by series id; every timed flush must match exactly. */
const EXPECTED: Readonly<Record<string, number>> = {
  'raw-sequential': TABLES + 2,
  'raw-promise-all': 3,
  'pipeflush-burst (postgres.js)': 1,
  'pipeflush-burst (pg)': 1,
  mikroorm: TABLES + 2,
  'pg-pipeline': 1,
}

const clients = new Map<string, SeriesClient>()
const skipped: string[] = []

beforeAll(async () => {
  await createSchema(db.sql)
  await db.proxy.setLatency(LATENCY_MS)
  for (const id of Object.keys(EXPECTED)) {
    const series = ALL_SERIES.find((s) => s.id === id)
    const reason = await series?.unavailableReason()
    if (!series || reason) {
      skipped.push(`${id}: ${reason ?? 'unknown series'}`)
      continue
    }
    const client = await series.open({ url: db.proxiedUrl }, { pool: 1 })
    await client.flush(work) // cold
    await client.flush(work) // warm-up
    clients.set(id, client)
  }
})

afterAll(async () => {
  await Promise.all([...clients.values()].map((c) => c.close()))
})

test(`flush ${TABLES} tables x 1 row at ${LATENCY_MS} ms`, async ({ bench, annotate }) => {
  if (skipped.length > 0) await annotate(`not run: ${skipped.join('; ')}`)
  const trips = new Map<string, number[]>()
  const registrations = [...clients].map(([name, client]) => {
    const seen: number[] = []
    trips.set(name, seen)
    return bench(name, async () => {
      client.counter.reset()
      await client.flush(work)
      const counted = client.counter.read().roundTrips
      const report = client.lastReport?.()
      // pipeflush's report must say what the socket saw, every time
      if (report && report.roundTrips !== counted) seen.push(-counted)
      // pipeflush takes one more round trip when its id pool runs short (report.idFetch): not counted
      else seen.push(counted - (report?.idFetch ? 1 : 0))
    })
  })
  if (registrations.length >= 2) await bench.compare(...registrations, { time: 300, iterations: 5 })
  else await registrations[0]?.run({ time: 300, iterations: 5 })
  for (const [name, seen] of trips) {
    expect(seen.length, name).toBeGreaterThan(0)
    expect(new Set(seen), `${name}: round trips of every flush`).toEqual(new Set([EXPECTED[name]]))
  }
})
