import type { PipelineMode } from '@pipeflush/core'
import { appKysely, type ExamplePool } from '@pipeflush/example-support'
import { createEntityManagerFactory } from '@pipeflush/kysely'
import { Passwords } from './auth/passwords.ts'
import { Tokens } from './auth/tokens.ts'
import { type RunningServer, startServer } from './http/server.ts'
import { RequestLog } from './measure/request-log.ts'
import type { Relations } from './relations.ts'
import { KyselyStore } from './repositories/kysely/kysely-store.ts'
import { PipeflushStore } from './repositories/pipeflush/pipeflush-store.ts'
import type { Store } from './repositories/store.ts'
import { type DB, FLUSH_LOG } from './schema.ts'

/** How the repositories are implemented: on pipeflush, or as plain Kysely (each query awaited). */
export type Implementation = 'pipeflush' | 'kysely'

/** Options of {@link startConduit}. */
export interface ConduitOptions {
  /**
   * The application's pool (`driver` and `client`: a `pg.Pool` with `pipeline: true`, or a postgres.js
   * client), with the test kit's round-trip counter on its sockets when `counter` is given.
   */
  readonly pool: Pick<ExamplePool, 'driver' | 'client'> & Partial<Pick<ExamplePool, 'counter'>>
  /** Default `pipeflush`. */
  readonly implementation?: Implementation
  /** pipeflush's pipeline mode (default `burst`). */
  readonly pipeline?: PipelineMode
  /** Default: a free port on 127.0.0.1. */
  readonly port?: number
  /** The tokens' signing secret (default: random for this process). */
  readonly secret?: Uint8Array
  /** scrypt's N for new password hashes (default 16384; see `Passwords`). */
  readonly scryptN?: number
}

/** A running Conduit backend. */
export interface RunningConduit extends RunningServer {
  /** `${url}/api`: the suite's `APIURL`. */
  readonly apiUrl: string
  readonly store: Store
  /** Each request's round trips and flushes. */
  readonly log: RequestLog
}

/**
 * Starts Conduit on the application's pool: the Kysely instance is made on it, and pipeflush's factory
 * gets both (reads and flushes share the pool); with `implementation: 'kysely'` the same handlers run
 * on the plain Kysely repositories instead. Closing stops the server once the requests in flight
 * answered (see `RunningServer.close`), not the pool: end the pool after it.
 *
 * @example
 * const app = db.connect(4) // a pg.Pool with pipeline: true, or a postgres.js client
 * const conduit = await startConduit({ pool: app })
 * // newman: APIURL = conduit.apiUrl
 * await conduit.close()
 */
export async function startConduit(options: ConduitOptions): Promise<RunningConduit> {
  const { pool } = options
  const db = appKysely<DB>(pool)
  let store: Store
  if ((options.implementation ?? 'pipeflush') === 'kysely') {
    store = new KyselyStore(db)
  } else {
    const factory = await createEntityManagerFactory<DB, Relations>({
      client: pool.client,
      db,
      flushLog: FLUSH_LOG,
    })
    store = new PipeflushStore(factory, {
      pipeline: options.pipeline ?? 'burst',
      ...(pool.counter ? { counter: pool.counter } : {}),
    })
  }
  const log = new RequestLog(pool.counter)
  const tokens = new Tokens(options.secret)
  const passwords = new Passwords(options.scryptN)
  const server = await startServer({ store, tokens, passwords, log, port: options.port })
  return { ...server, apiUrl: `${server.url}/api`, store, log }
}
