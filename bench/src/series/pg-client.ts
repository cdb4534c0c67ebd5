import { openClient } from '@pipeflush/testkit'
import type pg from 'pg'
import { type ConnectionCounter, createConnectionCounter } from '../measure/connection-counter.ts'

/** A node-postgres pool whose sockets count round trips. */
export interface CountedPgPool {
  readonly pool: pg.Pool
  readonly counter: ConnectionCounter
}

/**
 * Opens a `pg.Pool` of `max` connections with `pipeline: true` (pg >= 8.23) through the test kit (a
 * round-trip counter per connection; node-postgres sets TCP_NODELAY itself), and connects it unless
 * `connect` is false (a cold pool).
 *
 * @example
 * const { pool, counter } = await openPgPool(url, 1)
 */
export async function openPgPool(
  url: string,
  max: number,
  options: { readonly connect?: boolean } = {},
): Promise<CountedPgPool> {
  const counter = createConnectionCounter()
  const { client } = openClient('pg', url, counter, { max, pg: { application_name: 'pipeflush-bench' } })
  const pool = client as pg.Pool
  keepLostConnections(pool)
  if (options.connect !== false) await pool.query('select 1')
  return { pool, counter }
}

/**
 * Gives every client of `pool` an 'error' listener, checked out or idle: a connection lost while no
 * query of its runs (the server restarted, or a step abandoned at its time limit left it checked out)
 * is then told to the client's next query, which fails its step, instead of an unhandled 'error'
 * event ending the whole run before anything is written.
 */
function keepLostConnections(pool: pg.Pool): void {
  const ignore = () => {}
  pool.on('error', ignore)
  pool.on('connect', (client) => client.on('error', ignore))
}

/** Rows of one query on a pool (the last result's, for several statements). */
export async function pgQuery(pool: pg.Pool, text: string): Promise<Record<string, unknown>[]> {
  const result = (await pool.query(text)) as pg.QueryResult | pg.QueryResult[]
  const last = Array.isArray(result) ? result[result.length - 1] : result
  return last?.rows ?? []
}
