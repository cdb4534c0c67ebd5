import { createRoundTripCounter, type RoundTripCounter, type SocketFactoryOptions } from '@pipeflush/testkit'
import postgres from 'postgres'

/** A postgres.js client whose sockets count round trips. */
export interface CountedPostgresJs {
  readonly sql: postgres.Sql
  readonly counter: RoundTripCounter
}

/**
 * TCP_NODELAY on postgres.js sockets. postgres.js leaves Nagle's algorithm on (node-postgres turns it
 * off); the bench sets it by default (pipeflush recommends `noDelay()`), `--nagle` measures postgres.js
 * with its default. Set once by the CLI, before any client opens.
 */
export const postgresJsSocket = { noDelay: false }

/**
 * Opens a postgres.js client of `pool` connections through the test kit's round-trip counter, with
 * postgres.js defaults otherwise (prepared statements on, `max_pipeline` 100), and connects it.
 */
export async function openPostgresJs(url: string, pool: number): Promise<CountedPostgresJs> {
  const counter = createRoundTripCounter()
  const noDelay = postgresJsSocket.noDelay
  const socket = async (options: SocketFactoryOptions) => {
    const s = await counter.socket(options)
    if (noDelay) s.setNoDelay(true)
    return s
  }
  const options = {
    max: pool,
    onnotice: () => {},
    connection: { application_name: 'pipeflush-bench' },
    socket,
  }
  // postgres.js accepts a `socket` factory that its typings do not declare.
  const sql = postgres(url, options as postgres.Options<Record<string, postgres.PostgresType>>)
  await sql`select 1`
  return { sql, counter }
}
