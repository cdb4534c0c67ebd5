import { createRoundTripCounter, withSocket } from '@pipeflush/testkit'
import postgres from 'postgres'
import type { Target } from '../series/types.ts'
import { type Summary, summarize } from '../stats.ts'

/** The round-trip time of `select 1` through the proxy at the current latency. */
export interface RttMeasurement extends Summary {
  /** Round trips per `select 1` at the socket (1 unless something is wrong). */
  readonly roundTrips: number
}

/** Times `samples` warm `select 1` on one connection through `target` (after 3 untimed ones). */
export async function measureRtt(target: Target, samples: number): Promise<RttMeasurement> {
  const counter = createRoundTripCounter()
  const sql = postgres(target.url, withSocket({ max: 1, onnotice: () => {} }, counter))
  try {
    for (let i = 0; i < 3; i++) await sql`select 1`
    const times: number[] = []
    counter.reset()
    for (let i = 0; i < samples; i++) {
      const t0 = performance.now()
      await sql`select 1`
      times.push(performance.now() - t0)
    }
    return { ...summarize(times), roundTrips: counter.read().roundTrips / samples }
  } finally {
    await sql.end({ timeout: 5 })
  }
}
