// The CPU scenario's shop cells against a real PostgreSQL behind toxiproxy: each cell runs once per
// driver through the bench's own step (pipeflush-burst beside raw-pipeline and raw-simple, which send
// the statements pipeflush planned), and pipeflush and the raw drivers leave the same rows. No timing
// is asserted.
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { createSchema } from '../src/env/schema.ts'
import type { BenchEnv } from '../src/env/services.ts'
import { buildPlan, type CpuStep } from '../src/matrix.ts'
import { measureStep } from '../src/measure-step.ts'
import { parseOptions } from '../src/options.ts'
import { SHOP_TABLES } from '../src/realistic/shop-schema.ts'
import { cpuViews } from '../src/report/cpu-view.ts'
import { checkCpuConcurrencyLargeTargets } from '../src/report/targets.ts'
import { withRatios } from '../src/results.ts'
import { openDriver } from '../src/series/driver-client.ts'
import { selectSeries } from '../src/series/index.ts'
import { readsOnly, SHOP_CELLS, shopWork } from '../src/series/shop-cells.ts'
import { pipeflushShop } from '../src/series/shop-pipeflush.ts'
import { DRIVERS, type SeriesName } from '../src/series/types.ts'

const db = useTestDatabase()

const NAMES: SeriesName[] = ['pipeflush-burst', 'raw-pipeline', 'raw-simple']

/** Foreign key columns of the shop, and the table they point at. */
const REFERENCES: Readonly<Record<string, string>> = {
  customer_id: 'customer',
  purchase_id: 'purchase',
  product_id: 'product',
  tag_id: 'tag',
}

/**
 * Every row of the shop, with each id (and each foreign key) replaced by its rank among its table's
 * ids: clients write rows of their own ids, in the same order, so two runs of the same units compare
 * equal whatever ids they got.
 */
async function shopRows(): Promise<Record<string, unknown[]>> {
  const ranks = new Map<string, Map<string, number>>()
  const tables: Record<string, Record<string, unknown>[]> = {}
  for (const table of SHOP_TABLES) {
    const rows = await db.sql.unsafe(`select * from ${table} order by id`)
    tables[table] = rows.map((r) => ({ ...r }))
    ranks.set(table, new Map(rows.map((r, k) => [String(r['id']), k])))
  }
  const out: Record<string, unknown[]> = {}
  for (const [table, rows] of Object.entries(tables))
    out[table] = rows.map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([column, v]) => {
          const target = column === 'id' ? table : REFERENCES[column]
          if (!target || v === null) return [column, v]
          return [column, `${target}#${ranks.get(target)?.get(String(v)) ?? `missing ${String(v)}`}`]
        }),
      ),
    )
  return out
}

beforeAll(async () => {
  await createSchema(db.sql)
})

describe('CPU scenario: shop cells', () => {
  test('each cell runs once per driver: pipeflush-burst, raw-pipeline and raw-simple side by side', async (ctx) => {
    const series = selectSeries(NAMES)
    for (const s of series) {
      const reason = await s.unavailableReason()
      if (reason) ctx.skip(reason)
    }
    const options = parseOptions([
      '--scenario',
      'cpu',
      '--cpu-flushes',
      '10',
      '--cpu-warmup',
      '2',
      '--cpu-cells',
      SHOP_CELLS.join(','),
    ])
    const steps = buildPlan(options, selectSeries(undefined)).flatMap((g) => g.steps) as CpuStep[]
    expect(steps.map((s) => s.work.shop)).toEqual([...SHOP_CELLS])
    const env = { target: { url: db.proxiedUrl } } as BenchEnv
    const rows = []
    for (const step of steps) {
      // Only the three series write the shop cells: no traced series, no other.
      expect(step.series.map((s) => s.name).sort()).toEqual(
        DRIVERS.flatMap(() => NAMES)
          .slice()
          .sort(),
      )
      rows.push(...(await measureStep(step, env, options, 0, new Map())))
    }
    const results = withRatios(rows)
    for (const cell of SHOP_CELLS)
      for (const driver of DRIVERS)
        for (const name of NAMES) {
          const r = results.filter((x) => x.cpuCell === cell && x.driver === driver && x.series === name)
          expect(r, `${name} (${driver}) ${cell}`).toHaveLength(1)
          const row = r[0]
          expect(row?.status, `${name} (${driver}) ${cell}: ${row?.reason}`).toBe('ok')
          expect(row?.samples).toBe(10)
          expect(Number.isFinite(row?.cpuP50Ms) && Number.isFinite(row?.cpuP95Ms)).toBe(true)
          // One round trip per flush: a burst, and the same statements pipelined or in one message
          // (pipeflush: +1 on the flushes that fetched an id block first). postgres.js describes a
          // statement text new to the connection first (one round trip more, until the varying
          // updates' texts have all been seen): raw-pipeline there takes at least one.
          const idFetches = (row?.idFetches ?? 0) / (row?.samples ?? 1)
          const trips = (row?.roundTrips ?? Number.NaN) - idFetches
          if (name === 'raw-pipeline' && driver === 'postgres.js') expect(trips).toBeGreaterThanOrEqual(1)
          else expect(trips, `${name} (${driver}) ${cell}`).toBe(1)
          if (name === 'pipeflush-burst') {
            // A read batch has no flush report.
            if (!readsOnly(cell)) expect(row?.reportMismatches).toBe(0)
            expect(Number.isFinite(row?.cpuP50VsRawSimple)).toBe(true)
            expect(Number.isFinite(row?.cpuP50VsRawPipeline)).toBe(true)
          }
        }
    const report = { meta: {} as never, rtt: [], results }
    const titles = cpuViews(report).map((v) => v.title)
    for (const cell of SHOP_CELLS) expect(titles.some((t) => t.includes(`shop ${cell}:`))).toBe(true)
    const targets = checkCpuConcurrencyLargeTargets(report)
    const checks = targets.filter((c) => c.text.includes('per flush <= 1.6x raw-simple'))
    expect(checks).toHaveLength(SHOP_CELLS.filter((c) => !readsOnly(c)).length * DRIVERS.length)
    // The read batch against the same messages: pipelined on pg, one simple-protocol message on postgres.js.
    const reads = targets.filter((c) => c.text.includes('per read batch'))
    expect(
      reads.map((c) => c.text.includes(c.text.includes('(pg,') ? 'raw-pipeline' : 'raw-simple')),
    ).toEqual(DRIVERS.map(() => true))
    for (const c of [...checks, ...reads]) expect(c.ok).not.toBeNull()
  })

  for (const driver of DRIVERS)
    test(`the load cell reads a customer with 5 purchases, 15 lines and their products (${driver})`, async () => {
      const c = await openDriver(driver, db.proxiedUrl, 1)
      try {
        const shop = pipeflushShop(c)
        const work = shopWork('load')
        for (let i = 0; i < 2; i++) {
          const em = await shop.prepare(work)
          const customer = (await shop.read(em)) as {
            purchases: { purchase_lines: { product: unknown }[] }[]
          }
          expect(customer.purchases).toHaveLength(5)
          const lines = customer.purchases.flatMap((p) => p.purchase_lines)
          expect(lines).toHaveLength(15)
          expect(lines.every((l) => l.product !== null && typeof l.product === 'object')).toBe(true)
        }
      } finally {
        await c.close()
      }
    })

  for (const driver of DRIVERS)
    test(`pipeflush-burst and the raw series leave the same rows (${driver})`, async (ctx) => {
      const series = selectSeries(NAMES, [driver])
      for (const s of series) {
        const reason = await s.unavailableReason()
        if (reason) ctx.skip(reason)
      }
      const target = { url: db.proxiedUrl }
      const snapshots = new Map<string, unknown>()
      for (const s of series) {
        await db.sql.unsafe(`truncate ${SHOP_TABLES.join(', ')} restart identity cascade`)
        const client = await s.open(target, { pool: 1 })
        try {
          for (const cell of SHOP_CELLS)
            for (let i = 0; i < 3; i++) {
              await client.prepare?.(shopWork(cell))
              await client.flush(shopWork(cell))
            }
        } finally {
          await client.close()
        }
        snapshots.set(s.name, await shopRows())
      }
      const pipeflush = snapshots.get('pipeflush-burst') as Record<string, unknown[]>
      // The units wrote something of every kind: new rows, updated rows (versions bumped), rows gone.
      expect(pipeflush['payment']?.length).toBeGreaterThan(0)
      expect(
        (pipeflush['product'] as { version: number }[]).some((p) => p.version > 1),
        'versioned updates',
      ).toBe(true)
      for (const name of ['raw-pipeline', 'raw-simple']) {
        const raw = snapshots.get(name) as Record<string, unknown[]>
        for (const table of SHOP_TABLES) {
          // Only the rows that differ, so that a failure shows them rather than the fixtures.
          const theirs = (raw[table] ?? []).map((r) => JSON.stringify(r))
          const ours = (pipeflush[table] ?? []).map((r) => JSON.stringify(r))
          expect(theirs.length, `${name}: ${table} rows`).toBe(ours.length)
          expect(
            theirs.filter((r, k) => r !== ours[k]).slice(0, 3),
            `${name}: ${table} rows differing from pipeflush-burst's (${driver})`,
          ).toEqual(ours.filter((r, k) => r !== theirs[k]).slice(0, 3))
        }
      }
    })
})
