import { createRoundTripCounter, type RoundTripCounter, withSocket } from '@pipeflush/testkit'
import postgres from 'postgres'

/** A postgres.js client whose sockets count round trips. */
export interface CountedPostgresJs {
  readonly sql: postgres.Sql
  readonly counter: RoundTripCounter
}

/**
 * Opens a postgres.js client of `pool` connections through the test kit's round-trip counter, with
 * postgres.js defaults otherwise (prepared statements on, `max_pipeline` 100), and connects it.
 */
export async function openPostgresJs(url: string, pool: number): Promise<CountedPostgresJs> {
  const counter = createRoundTripCounter()
  const sql = postgres(
    url,
    withSocket({ max: pool, onnotice: () => {}, connection: { application_name: 'pipeflush-bench' } }, counter),
  )
  await sql`select 1`
  return { sql, counter }
}
