import { openClient, type RoundTripCounter } from '@pipeflush/testkit'
import type postgres from 'postgres'
import { type ConnectionCounter, createConnectionCounter } from '../measure/connection-counter.ts'

/** A postgres.js client whose sockets count round trips. */
export interface CountedPostgresJs {
  readonly sql: postgres.Sql
  readonly counter: ConnectionCounter
}

/**
 * TCP_NODELAY on the sockets of the raw postgres.js series. postgres.js leaves Nagle's algorithm on
 * (node-postgres turns it off, pipeflush turns it off on the clients it is given); the bench sets it by
 * default, `--nagle` measures raw postgres.js with its default. Set once by the CLI, before any client opens.
 */
export const postgresJsSocket = { noDelay: true }

/** `counter` whose postgres.js sockets get TCP_NODELAY when {@link postgresJsSocket} says so. */
function withNoDelay(counter: ConnectionCounter): RoundTripCounter {
  const noDelay = postgresJsSocket.noDelay
  return {
    ...counter,
    socket: async (options) => {
      const s = await counter.socket(options)
      if (noDelay) s.setNoDelay(true)
      return s
    },
  }
}

/**
 * Opens a postgres.js client of `pool` connections through the test kit (a round-trip counter per
 * connection), with postgres.js defaults otherwise (prepared statements on, `max_pipeline` 100), and
 * connects it unless `connect` is false (a cold pool).
 *
 * @example
 * const { sql, counter } = await openPostgresJs(url, 1)
 */
export async function openPostgresJs(
  url: string,
  pool: number,
  options: { readonly connect?: boolean } = {},
): Promise<CountedPostgresJs> {
  const counter = createConnectionCounter()
  const { client } = openClient('postgres.js', url, withNoDelay(counter), {
    max: pool,
    postgresJs: { connection: { application_name: 'pipeflush-bench' } },
  })
  const sql = client as postgres.Sql
  if (options.connect !== false) await sql`select 1`
  return { sql, counter }
}

/** Rows of one simple-protocol query on a postgres.js client. */
export async function postgresJsQuery(sql: postgres.Sql, text: string): Promise<Record<string, unknown>[]> {
  return [...(await sql.unsafe(text))]
}
