import pg from 'pg'
import postgres from 'postgres'
import type { RoundTripCounter } from '../round-trips/round-trip-counter.ts'

/**
 * The drivers pipeflush runs on: `postgres.js` (the `postgres` package), `pg` (a `pg.Pool` in
 * `pipeline` mode) and `pg-simple` (a `pg.Pool` without it).
 */
export type DriverName = 'postgres.js' | 'pg' | 'pg-simple'

/** The drivers every integration suite runs for (the `PIPEFLUSH_DRIVERS` variable, comma-separated, narrows them). */
export const TEST_DRIVERS: readonly DriverName[] = driversFromEnv(['postgres.js', 'pg'])

/** Options of a test client, for either driver. */
export interface ClientOptions {
  /** Connections in the pool (default 1). */
  readonly max?: number
  /** postgres.js's `prepare` (default true); ignored by pg. */
  readonly prepare?: boolean
  /** Seconds to wait for a connection to open (postgres.js `connect_timeout`, pg `connectionTimeoutMillis`). */
  readonly connectTimeoutSeconds?: number
  /** postgres.js only: other options, as given to `postgres(url, options)`. */
  readonly postgresJs?: Readonly<Record<string, unknown>>
  /** pg only: other options, as given to `new pg.Pool(options)`. */
  readonly pg?: Readonly<Record<string, unknown>>
}

/** A pool of either driver with a round-trip counter on every socket. */
export interface TestClient {
  readonly driver: DriverName
  /** The postgres.js `sql` or the `pg.Pool`, to hand to `EntityManager.connect`. */
  readonly client: postgres.Sql | pg.Pool
  readonly counter: RoundTripCounter
  /** One query through the pool, its rows (for checks; counted by the counter too). */
  query<T = Record<string, unknown>>(text: string): Promise<T[]>
  /** Ends the pool. */
  end(): Promise<void>
}

/**
 * A pool of `driver` on `url`, its sockets counted by `counter`.
 *
 * @example
 * const { client, counter } = openClient('pg', url, createRoundTripCounter(), { max: 4 })
 * const em = await EntityManager.connect(client)
 */
export function openClient(
  driver: DriverName,
  url: string,
  counter: RoundTripCounter,
  options: ClientOptions = {},
): TestClient {
  const max = options.max ?? 1
  if (driver === 'postgres.js') {
    const sql = postgres(url, {
      max,
      onnotice: () => {},
      ...(options.prepare === undefined ? {} : { prepare: options.prepare }),
      ...(options.connectTimeoutSeconds === undefined
        ? {}
        : { connect_timeout: options.connectTimeoutSeconds }),
      ...options.postgresJs,
      socket: counter.socket,
    } as postgres.Options<Record<string, postgres.PostgresType>>)
    return {
      driver,
      client: sql,
      counter,
      query: async <T>(text: string) => [...(await sql.unsafe(text))] as T[],
      end: () => sql.end({ timeout: 1 }).catch(() => {}),
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max,
    pipeline: driver === 'pg',
    stream: counter.stream,
    ...(options.connectTimeoutSeconds === undefined
      ? {}
      : { connectionTimeoutMillis: options.connectTimeoutSeconds * 1000 }),
    ...options.pg,
  } as pg.PoolConfig)
  pool.on('error', () => {}) // an idle client's lost connection must not end the test process
  let ended: Promise<void> | undefined
  return {
    driver,
    client: pool,
    counter,
    query: async <T>(text: string) => {
      const result = await pool.query(text)
      const last = Array.isArray(result) ? result[result.length - 1] : result
      return (last?.rows ?? []) as T[]
    },
    end: () => {
      ended ??= pool.end().catch(() => {})
      return ended
    },
  }
}

function driversFromEnv(all: readonly DriverName[]): readonly DriverName[] {
  const wanted = process.env['PIPEFLUSH_DRIVERS']
  if (!wanted) return all
  const names = wanted.split(',').map((s) => s.trim()) as DriverName[]
  return names.filter((n) => n === 'postgres.js' || n === 'pg' || n === 'pg-simple')
}
