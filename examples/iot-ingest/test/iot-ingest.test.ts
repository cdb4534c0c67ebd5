import { appKysely, FlushMeter } from '@pipeflush/example-support'
import { createEntityManagerFactory } from '@pipeflush/kysely'
import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { ingest } from '../src/ingest.ts'
import { makeReadings, type Reading, remeasure } from '../src/readings.ts'
import { ingestRowByRow } from '../src/row-by-row.ts'
import { createSchema, type DB, resetData } from '../src/schema.ts'

const db = useTestDatabase()
const start = new Date('2025-10-01T00:00:00Z')
/** Setup and checks go through a direct postgres.js client, apart from the application's pool. */
const admin = (text: string) => db.sql.unsafe(text)

beforeAll(async () => {
  await createSchema(admin)
  await db.proxy.setLatency(1)
})

/** The application as the example runs it: a pool of `driver` and its Kysely, both given to pipeflush. */
async function openApp(driver: DriverName, options: { max: number; pipeline?: 'burst' | 'off' }) {
  const app = db.client(driver, { max: options.max })
  const factory = await createEntityManagerFactory<DB>({
    client: app.client,
    db: appKysely<DB>(app),
    ...(options.pipeline ? { pipeline: options.pipeline } : {}),
  })
  return { app, meter: new FlushMeter(factory, app.counter, () => {}) }
}

/** The last reading of each (device, time), as the database must hold them after an ingest. */
function lastWins(readings: readonly Reading[]): Map<string, number> {
  const out = new Map<string, number>()
  for (const r of readings) out.set(`${r.device}@${r.recorded_at.toISOString()}`, r.measure)
  return out
}

async function stored(): Promise<Map<string, number>> {
  const rows = await db.sql`select device, recorded_at, measure from reading`
  return new Map(
    rows.map((r) => [`${r['device']}@${(r['recorded_at'] as Date).toISOString()}`, r['measure'] as number]),
  )
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  for (const pipeline of ['burst', 'off'] as const) {
    test(`${pipeline}: batches of 100 to 20,000 readings are upserted in one statement, the last reading winning`, async () => {
      const { meter } = await openApp(driver, { max: 1, pipeline })
      for (const size of [100, 1000, 20_000]) {
        await resetData(admin)
        const batch = makeReadings(size, { seed: size, start })
        // A repeated (device, time) within the batch: the later measure wins.
        const withRepeat = [...batch, { ...batch[0]!, measure: -1 }]
        const first = await ingest(meter, withRepeat)
        expect(first).toMatchObject({ mode: pipeline, statements: 1, inserted: 0, connected: false })
        expect(first.upserted).toBe(lastWins(withRepeat).size)
        // burst: one round trip; off: BEGIN, the statement, COMMIT. As counted at the socket.
        expect(first.roundTrips).toBe(pipeline === 'burst' ? 1 : 3)
        expect(meter.of(first)?.socketRoundTrips).toBe(first.roundTrips)
        expect(await stored()).toEqual(lastWins(withRepeat))
        const again = remeasure(batch, 0.25)
        await ingest(meter, again)
        expect(await stored()).toEqual(lastWins(again))
      }
      expect(meter.mismatches).toEqual([])
    })
  }

  test('readings of several batches accumulate; overlapping readings are updated, not duplicated', async () => {
    await resetData(admin)
    const { meter } = await openApp(driver, { max: 2 })
    const a = makeReadings(500, { seed: 1, start })
    const b = [...makeReadings(500, { seed: 2, start }), ...remeasure(a.slice(0, 100), 1)]
    await Promise.all([ingest(meter, a)])
    await ingest(meter, b)
    expect(await stored()).toEqual(lastWins([...a, ...b]))
    expect(meter.mismatches).toEqual([])
  })

  test('the row-by-row baseline stores the same rows, one round trip per reading plus BEGIN and COMMIT', async () => {
    await resetData(admin)
    const { app } = await openApp(driver, { max: 1 })
    const readings = makeReadings(100, { seed: 3, start })
    await ingestRowByRow(app, readings.slice(0, 1)) // prepares the upsert on the connection
    const { count } = await app.counter.measure(() => ingestRowByRow(app, readings))
    expect(count.roundTrips).toBe(readings.length + 2)
    expect(await stored()).toEqual(lastWins(readings))
  })
})
