// The request scenario against a real PostgreSQL behind toxiproxy: pipeflush serves each request (load
// a customer's graph, change it, flush) in exactly 2 round trips at the socket on both drivers, its
// reports equal the socket; every library leaves the same shop.
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createSchema, resetShop } from '../src/env/schema.ts'
import { measureRequests } from '../src/measure/request-run.ts'
import { REQUEST_SERIES } from '../src/request/series.ts'

const db = useTestDatabase()

/** What the requests did to the shop, whatever ids each library gave its rows. */
async function shopState(): Promise<Record<string, unknown>> {
  const [row] = await db.sql.unsafe(`select
    (select sum(tier) from customer) as tiers, (select count(updated_at) from customer) as customers_updated,
    (select sum(stock) from product) as stock, (select count(*) from purchase) as purchases,
    (select string_agg(status || ':' || coalesce(note, '') || ':' || total, ',' order by customer_id, placed_at, status)
       from purchase) as purchase_rows,
    (select count(*) from purchase_line) as lines, (select sum(qty) from purchase_line) as qty,
    (select sum(price) from purchase_line) as line_prices,
    (select string_agg(p.customer_id || ':' || l.product_id || ':' || l.qty, ',' order by p.customer_id, l.product_id, l.qty)
       from purchase_line l join purchase p on p.id = l.purchase_id where p.status = 'pending') as new_lines,
    (select string_agg(customer_id || ':' || action || ':' || (detail->>'request'), ',' order by customer_id) from audit_event) as audit`)
  return { ...row }
}

beforeAll(async () => {
  await createSchema(db.sql)
  // Answers come back 5 ms after the request at the earliest, so a pipelined message always goes out
  // whole before any answer arrives and the count cannot depend on the machine's speed.
  await db.proxy.setLatency(5)
})

afterAll(async () => {
  await db.proxy.setLatency(0)
})

describe('request scenario', () => {
  for (const series of REQUEST_SERIES.filter((s) => s.name === 'pipeflush-burst')) {
    test(`${series.id}: every request in 2 round trips at the socket (load 1, flush 1)`, async (ctx) => {
      const reason = await series.unavailableReason()
      if (reason) ctx.skip(reason)
      const m = await measureRequests(series, { url: db.proxiedUrl }, () => resetShop(db.sql), {
        samples: 5,
        warmup: 0,
        pool: 4,
      })
      expect(m.samples).toHaveLength(5)
      expect(m.samples.map((s) => [s.loadRoundTrips, s.flushRoundTrips])).toEqual(
        Array.from({ length: 5 }, () => [1, 1]),
      )
      expect(m.samples.map((s) => s.report?.roundTrips)).toEqual([1, 1, 1, 1, 1])
      expect(m.mismatches).toBe(0)
    })
  }

  test('every library leaves the same shop after the same requests', async () => {
    const states = new Map<string, Record<string, unknown>>()
    for (const series of REQUEST_SERIES) {
      if (await series.unavailableReason()) continue
      const m = await measureRequests(series, { url: db.proxiedUrl }, () => resetShop(db.sql), {
        samples: 3,
        warmup: 1,
        pool: 2,
      })
      expect(m.samples, series.id).toHaveLength(3)
      states.set(series.id, await shopState())
    }
    const [first, ...others] = [...states.entries()]
    expect(first?.[1]['purchases']).toBeDefined()
    for (const [id, state] of others) expect(state, `${id} vs ${first?.[0]}`).toEqual(first?.[1])
  })
})
