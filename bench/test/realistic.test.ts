// The realistic workload against a real PostgreSQL behind toxiproxy: every library replays the same
// units of work and leaves the same shop; pipeflush's reports equal the socket count for every flush,
// in sequence and four at a time, from cold pools.
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createSchema, resetShop } from '../src/env/schema.ts'
import { measureRealistic } from '../src/measure/realistic-run.ts'
import { REALISTIC_SERIES } from '../src/realistic/series.ts'

const db = useTestDatabase()
const UNITS = 24
/** The series that flush with pipeflush (on its own, and through `@pipeflush/drizzle`): their reports are checked. */
const PIPEFLUSH: ReadonlySet<string> = new Set(['pipeflush-burst', 'pipeflush-drizzle'])

/** What the units did to the shop, whatever ids each library gave its rows. */
async function shopState(): Promise<Record<string, unknown>> {
  const [row] = await db.sql.unsafe(`select
    (select count(*) from customer) as customers, (select sum(tier) from customer) as tiers,
    (select count(updated_at) from customer) as customers_updated,
    (select sum(stock) from product) as stock, (select sum(price) from product) as prices,
    (select count(*) from purchase) as purchases, (select sum(total) from purchase) as totals,
    (select string_agg(status, ',' order by status) from purchase where status <> 'paid') as statuses,
    (select count(note) from purchase) as notes, (select count(shipped_at) from purchase) as shipped,
    (select count(*) from purchase_line) as lines, (select sum(qty) from purchase_line) as qty,
    (select sum(price) from purchase_line) as line_prices,
    (select count(*) from payment) as payments, (select sum(amount) from payment) as paid,
    (select count(*) from shipment) as shipments, (select count(*) from purchase_tag) as tags,
    (select string_agg(action, ',' order by action) from audit_event) as actions,
    (select sum((detail->>'n')::int) from audit_event) as audit_n,
    (select sum(extract(epoch from at)) from audit_event) as audit_at`)
  return { ...row }
}

beforeAll(async () => {
  await createSchema(db.sql)
  // Answers come back 5 ms after the request at the earliest: pipelined writes all go out before any
  // answer arrives, so the counts cannot depend on the machine's speed.
  await db.proxy.setLatency(5)
})

afterAll(async () => {
  await db.proxy.setLatency(0)
})

describe('realistic workload', () => {
  test('every library replays the same units of work into the same shop', async () => {
    const states = new Map<string, Record<string, unknown>>()
    for (const series of REALISTIC_SERIES) {
      const m = await measureRealistic(series, { url: db.proxiedUrl }, () => resetShop(db.sql), {
        runs: 1,
        units: UNITS,
        pool: 10,
        concurrency: 1,
        seed: 3,
      })
      expect(m.flushes, series.id).toHaveLength(UNITS)
      expect(m.socketRoundTrips, series.id).toHaveLength(UNITS)
      if (PIPEFLUSH.has(series.name)) expect(m.mismatches, `${series.id}: report != socket`).toBe(0)
      states.set(series.id, await shopState())
    }
    const [first, ...others] = [...states.entries()]
    expect(first?.[1]['purchases']).toBeDefined()
    for (const [id, state] of others) expect(state, `${id} vs ${first?.[0]}`).toEqual(first?.[1])
  })

  test('pipeflush four at a time from cold pools of 10: every report equals its connection count', async () => {
    for (const series of REALISTIC_SERIES.filter((s) => PIPEFLUSH.has(s.name))) {
      const m = await measureRealistic(series, { url: db.proxiedUrl }, () => resetShop(db.sql), {
        runs: 2,
        units: UNITS,
        pool: 10,
        concurrency: 4,
        seed: 5,
      })
      expect(m.flushes, series.id).toHaveLength(2 * UNITS)
      expect([m.mismatches, m.mismatchedRounds], `${series.id}: report != socket`).toEqual([0, 0])
      // In a warm round without id fetches, every flush is one round trip.
      const steady = m.flushes.filter((f) => !f.first && !f.report?.idFetch && !f.report?.connected)
      expect(steady.length, series.id).toBeGreaterThan(0)
      expect(new Set(steady.map((f) => f.report?.roundTrips)), series.id).toEqual(new Set([1]))
    }
  })
})
