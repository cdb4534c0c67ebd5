import { randomBytes } from 'node:crypto'
import {
  cleanupAll,
  createDatabase,
  createRoundTripCounter,
  type DriverName,
  dropDatabase,
  openClient,
  redactUrl,
  registerCleanup,
  startPostgres,
  startToxiproxy,
  type TestClient,
} from '@pipeflush/testkit'

/** Options of {@link startExampleDatabase}. */
export interface ExampleDatabaseOptions {
  /** Prefix of the database created for this run, e.g. `bookstore`. */
  readonly name: string
  /** Latency toxiproxy adds to every answer of the server, in ms. */
  readonly latencyMs: number
  /** The driver of the pools `connect` makes (default `pg`: a `pg.Pool` with `pipeline: true`). */
  readonly driver?: DriverName
}

/**
 * A pool through the proxy, with its round trips counted at the socket: `client` is the `pg.Pool` or
 * the postgres.js `sql`, `counter` the test kit's round-trip counter on every connection it opens,
 * `query(text)` one query through the pool (setup and checks), `end()` ends it.
 */
export type ExamplePool = TestClient

/** A fresh database of its own behind a toxiproxy latency. */
export interface ExampleDatabase {
  /** The driver of the pools `connect` makes. */
  readonly driver: DriverName
  /**
   * A new pool through the proxy (`max` connections, default 4), ended by `stop()`. Use one pool per
   * compared mode: each starts cold, and pipeflush's id pool (per client) never outlives a reset.
   */
  connect(max?: number): ExamplePool
  /** One line saying what runs where (passwords redacted). */
  readonly description: string
  /** Ends the pools, drops the database, stops what was started. Safe to call twice. */
  stop(): Promise<void>
}

/**
 * Starts (or reuses, with `DATABASE_URL` / `TOXIPROXY_URL`) a PostgreSQL and a toxiproxy, creates a
 * database for this run, puts `latencyMs` on the proxy and returns how to open pools through it.
 *
 * @example
 * const db = await startExampleDatabase({ name: 'bookstore', latencyMs: 2, driver: 'pg' })
 * try {
 *   const { client, counter, query } = db.connect(4) // client: a pg.Pool with pipeline: true
 *   await query('select 1')
 *   counter.read().connections // 1, its opening counted in counter.read().roundTrips
 * } finally {
 *   await db.stop()
 * }
 */
export async function startExampleDatabase(options: ExampleDatabaseOptions): Promise<ExampleDatabase> {
  const driver = options.driver ?? 'pg'
  const pg = await startPostgres()
  try {
    const tp = await startToxiproxy()
    const name = `${options.name}_${randomBytes(4).toString('hex')}`
    const url = await createDatabase(pg.url, name).catch((e: unknown) => {
      throw new Error(`could not create database ${name} (with DATABASE_URL, the role needs CREATEDB)`, {
        cause: e,
      })
    })
    const proxy = await tp.proxy(name, { host: pg.host, port: pg.port })
    await proxy.setLatency(options.latencyMs)
    const pools: ExamplePool[] = []
    const connect = (max = 4): ExamplePool => {
      const pool = openClient(driver, proxy.rewriteUrl(url), createRoundTripCounter(), { max })
      pools.push(pool)
      return pool
    }
    // Registered with the test kit's cleanup, so that Ctrl-C also ends the pools and drops the database
    // (before the test kit stops the servers it started).
    const release = registerCleanup(async () => {
      await Promise.all(pools.map((p) => p.end().catch(() => {})))
      await proxy.remove().catch(() => {})
      await dropDatabase(pg.url, name).catch(() => {})
    })
    let stopped: Promise<void> | undefined
    const stop = () =>
      (stopped ??= (async () => {
        await release()
        await tp.stop()
        await pg.stop()
        await cleanupAll()
      })())
    const description =
      `${describeDriver(driver)} on PostgreSQL ${pg.version} (${pg.provider}) at ${redactUrl(url)}, ` +
      `through toxiproxy ${tp.version} (${tp.provider}) adding ${options.latencyMs} ms per answer`
    return { driver, connect, description, stop }
  } catch (e) {
    await pg.stop().catch(() => {})
    await cleanupAll()
    throw e
  }
}

/** What the pools are, for the first line an example prints. */
function describeDriver(driver: DriverName): string {
  if (driver === 'postgres.js') return 'postgres.js pools'
  return driver === 'pg' ? 'pg.Pool (pipeline: true)' : 'pg.Pool (no pipelining)'
}
