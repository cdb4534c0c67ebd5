// The bench's per-connection counter on both drivers (integration project: real PostgreSQL, real
// toxiproxy): the round trips that open a connection told apart from the rest, exactly.
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { describe, expect, test } from 'vitest'
import { openDriver } from '../src/series/driver-client.ts'
import type { DriverName } from '../src/series/types.ts'

const db = useTestDatabase()

describe.each(['postgres.js', 'pg'] as DriverName[])('connection counter (%s)', (driver) => {
  test('a cold pool: opening apart, one round trip per query after it', async () => {
    const { counter, query, close } = await openDriver(driver, db.proxiedUrl, 1, { connect: false })
    try {
      await query('select 1')
      const [opened] = counter.perConnection()
      // The startup message at least; postgres.js adds its type query.
      expect(opened!.opening).toBeGreaterThanOrEqual(driver === 'postgres.js' ? 2 : 1)
      expect(opened!.roundTrips).toBe(opened!.opening + 1)
      counter.reset()
      await query('select 2')
      expect(counter.perConnection()).toEqual([{ roundTrips: 1, opening: 0 }])
    } finally {
      await close()
    }
  })

  test("an open connection's query holding the type query's text is not opening", async () => {
    const { counter, query, close } = await openDriver(driver, db.proxiedUrl, 1)
    try {
      counter.reset()
      await query("select 1 as one -- typcategory = 'A'")
      expect(counter.perConnection()).toEqual([{ roundTrips: 1, opening: 0 }])
    } finally {
      await close()
    }
  })
})
