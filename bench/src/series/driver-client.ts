import type pg from 'pg'
import type postgres from 'postgres'
import type { ConnectionCounter } from '../measure/connection-counter.ts'
import { openPgPool, pgQuery } from './pg-client.ts'
import { openPostgresJs, postgresJsQuery } from './postgres-js-client.ts'
import type { DriverName } from './types.ts'

/** A pool of either driver, counted per connection, as the series that run on both drivers use it. */
export type DriverClient =
  | {
      readonly driver: 'postgres.js'
      readonly client: postgres.Sql
      readonly counter: ConnectionCounter
      query(text: string): Promise<Record<string, unknown>[]>
      close(): Promise<void>
    }
  | {
      readonly driver: 'pg'
      /** A `pg.Pool` with `pipeline: true`. */
      readonly client: pg.Pool
      readonly counter: ConnectionCounter
      query(text: string): Promise<Record<string, unknown>[]>
      close(): Promise<void>
    }

/**
 * A pool of `max` connections of `driver` on `url`: postgres.js, or a `pg.Pool` with `pipeline: true`.
 * Connected unless `connect` is false (a cold pool: no connection opened yet).
 *
 * @example
 * const { client, counter, close } = await openDriver('pg', url, 10, { connect: false })
 */
export async function openDriver(
  driver: DriverName,
  url: string,
  max: number,
  options: { readonly connect?: boolean } = {},
): Promise<DriverClient> {
  if (driver === 'postgres.js') {
    const { sql, counter } = await openPostgresJs(url, max, options)
    return {
      driver,
      client: sql,
      counter,
      query: (text) => postgresJsQuery(sql, text),
      close: () => sql.end({ timeout: 5 }),
    }
  }
  const { pool, counter } = await openPgPool(url, max, options)
  return { driver, client: pool, counter, query: (text) => pgQuery(pool, text), close: () => pool.end() }
}
