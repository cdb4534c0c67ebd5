import { randomBytes } from 'node:crypto'
import {
  cleanupAll,
  createDatabase,
  createRoundTripCounter,
  dropDatabase,
  type RoundTripCounter,
  redactUrl,
  registerCleanup,
  startPostgres,
  startToxiproxy,
  withSocket,
} from '@pipeflush/testkit'
import postgres from 'postgres'

/** Options of {@link startExampleDatabase}. */
export interface ExampleDatabaseOptions {
  /** Prefix of the database created for this run, e.g. `bookstore`. */
  readonly name: string
  /** Latency toxiproxy adds to every answer of the server, in ms. */
  readonly latencyMs: number
}

/** A postgres.js pool through the proxy, with its round trips counted at the socket. */
export interface ExamplePool {
  readonly sql: postgres.Sql
  readonly counter: RoundTripCounter
}

/** A fresh database of its own behind a toxiproxy latency. */
export interface ExampleDatabase {
  /**
   * A new pool through the proxy (`max` connections, default 4), ended by `stop()`. Use one pool per
   * compared mode: each starts cold, and pipeflush's id pool (per client) never outlives a reset.
   */
  connect(max?: number): ExamplePool
  /** One line saying what runs where (passwords redacted). */
  readonly description: string
  /** Ends the pool, drops the database, stops what was started. Safe to call twice. */
  stop(): Promise<void>
}

/**
 * Starts (or reuses, with `DATABASE_URL` / `TOXIPROXY_URL`) a PostgreSQL and a toxiproxy, creates a
 * database for this run, puts `latencyMs` on the proxy and returns a pool through it.
 *
 * @example
 * const db = await startExampleDatabase({ name: 'bookstore', latencyMs: 2 })
 * try {
 *   const { sql, counter } = db.connect(4)
 *   await sql`select 1`
 * } finally {
 *   await db.stop()
 * }
 */
export async function startExampleDatabase(options: ExampleDatabaseOptions): Promise<ExampleDatabase> {
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
    const pools: postgres.Sql[] = []
    const connect = (max = 4): ExamplePool => {
      const counter = createRoundTripCounter()
      const sql = postgres(proxy.rewriteUrl(url), withSocket({ max, onnotice: () => {} }, counter))
      pools.push(sql)
      return { sql, counter }
    }
    // Registered with the test kit's cleanup, so that Ctrl-C also ends the pools and drops the database
    // (before the test kit stops the servers it started).
    const release = registerCleanup(async () => {
      await Promise.all(pools.map((p) => p.end({ timeout: 1 }).catch(() => {})))
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
      `PostgreSQL ${pg.version} (${pg.provider}) at ${redactUrl(url)}, ` +
      `through toxiproxy ${tp.version} (${tp.provider}) adding ${options.latencyMs} ms per answer`
    return { connect, description, stop }
  } catch (e) {
    await pg.stop().catch(() => {})
    await cleanupAll()
    throw e
  }
}
