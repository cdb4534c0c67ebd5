import { createEntityManagerFactory } from '@pipeflush/kysely'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, expect, test } from 'vitest'
import { ingest } from '../src/ingest.ts'
import { makeReadings, type Reading, remeasure } from '../src/readings.ts'
import { createSchema, type DB, resetData } from '../src/schema.ts'

const db = useTestDatabase()
const start = new Date('2025-10-01T00:00:00Z')

beforeAll(async () => {
  await createSchema(db.sql)
  await db.proxy.setLatency(1)
})

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

for (const pipeline of ['burst', 'off'] as const) {
  test(`${pipeline}: batches of 100 to 20,000 readings are upserted in one statement, the last reading winning`, async () => {
    const { sql } = db.connect({ max: 1 })
    const factory = await createEntityManagerFactory<DB>({ sql, pipeline })
    for (const size of [100, 1000, 20_000]) {
      await resetData(db.sql)
      const batch = makeReadings(size, { seed: size, start })
      // A repeated (device, time) within the batch: the later measure wins.
      const withRepeat = [...batch, { ...batch[0]!, measure: -1 }]
      const first = await ingest(factory, withRepeat)
      expect(first).toMatchObject({ mode: pipeline, statements: 1, inserted: 0 })
      expect(first.upserted).toBe(lastWins(withRepeat).size)
      // off: BEGIN, the statement (described first when cold), COMMIT.
      expect(first.roundTrips).toBe(pipeline === 'burst' ? 1 : first.cold ? 4 : 3)
      expect(await stored()).toEqual(lastWins(withRepeat))
      const again = remeasure(batch, 0.25)
      await ingest(factory, again)
      expect(await stored()).toEqual(lastWins(again))
    }
  })
}

test('readings of several batches accumulate; overlapping readings are updated, not duplicated', async () => {
  await resetData(db.sql)
  const { sql } = db.connect({ max: 2 })
  const factory = await createEntityManagerFactory<DB>({ sql })
  const a = makeReadings(500, { seed: 1, start })
  const b = [...makeReadings(500, { seed: 2, start }), ...remeasure(a.slice(0, 100), 1)]
  await Promise.all([ingest(factory, a)])
  await ingest(factory, b)
  expect(await stored()).toEqual(lastWins([...a, ...b]))
})
