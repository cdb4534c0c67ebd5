import { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type {
  Driver,
  DriverError,
  Param,
  PipelinedStatement,
  ReserveOptions,
  Row,
  Session,
  SimpleResult,
  StatementResult,
} from '../driver.ts'
import { closedError, toDriverError } from '../driver-errors.ts'
import { SessionLifecycle } from '../session-lifecycle.ts'
import { claimOpening, type MeteredSocket, Meters } from '../socket/meters.ts'
import type { PgPool, PgPoolClient, PgResult } from './client-types.ts'
import { copyQueryClass } from './copy-query.ts'

/** Is `client` a `pg.Pool` (told by shape: pipeflush does not import the driver)? */
export function isPgPool(client: unknown): client is PgPool {
  const c = client as Partial<PgPool> | null
  return (
    typeof client === 'object' &&
    c !== null &&
    typeof c.connect === 'function' &&
    typeof c.query === 'function' &&
    typeof c.on === 'function' &&
    typeof c.options === 'object' &&
    c.options !== null &&
    typeof c.totalCount === 'number'
  )
}

/** node-postgres's names of the server's error fields (`lib/` DatabaseError). */
const PG_FIELDS = { constraint: 'constraint', table: 'table', column: 'column' } as const

/** Messages node-postgres gives errors of a connection that is gone or could not be made. */
const CONNECTION_MESSAGES =
  /Connection terminated|not queryable|Client was closed|timeout exceeded when trying to connect|timeout expired|Query read timeout/

/**
 * The node-postgres adapter. A flush checks a client out of the application's pool. Where the pool's
 * clients pipeline (`new pg.Pool({ pipeline: true })`), a flush is pipelined extended-protocol
 * statements, named so each is parsed once per connection, in the same write as its first execution:
 * a statement new to a connection costs no extra round trip. Otherwise a flush goes as simple-protocol
 * text, one Query message per round trip. On creation it wraps the pool's `stream` option so that
 * every client made from then on has a round-trip meter on its socket.
 *
 * @example
 * const driver = new PgDriver(new pg.Pool({ connectionString: url, pipeline: true }))
 * const session = await driver.reserve({ deadline: performance.now() + 5000 })
 */
export class PgDriver implements Driver {
  readonly name = 'pg' as const
  readonly address: string
  readonly pool: PgPool
  readonly meters = new Meters()
  #pooler: Promise<boolean> | undefined

  constructor(pool: PgPool) {
    this.pool = pool
    this.address = addressOf(pool)
    const inner = pool.options.stream
    const address = this.address
    pool.options.stream = (config: unknown) => {
      const stream = (typeof inner === 'function' ? inner(config) : (inner ?? new Socket())) as Duplex
      // node's `connect` resets `write` on the socket: put the meter on once connected, before the
      // driver's first write (its own 'connect' listener is added after this one).
      if (stream instanceof Socket && stream.pending) {
        stream.once('connect', () => this.meters.add(stream, address))
      } else {
        this.meters.add(stream, address)
      }
      return stream
    }
  }

  get pipelines(): boolean {
    return this.pool.options.pipeline === true
  }

  /** COPY data goes behind a simple-protocol message, pipelining pool or not (see `copy-query.ts`). */
  readonly copies = true

  async query(text: string, params: readonly Param[] = []): Promise<readonly Row[]> {
    try {
      const result = await this.pool.query(params.length === 0 ? text : { text, values: params })
      return Array.isArray(result) ? (result[result.length - 1]?.rows ?? []) : result.rows
    } catch (e) {
      throw this.toDriverError(e)
    }
  }

  detectPooler(): Promise<boolean> {
    if (!this.#pooler) {
      const p = (async () => {
        const client = await this.pool.connect()
        try {
          const result = (await client.query('select pg_backend_pid()::text as pid')) as PgResult
          const pid = Number(result.rows[0]?.['pid'])
          return typeof client.processID === 'number' && pid !== client.processID
        } finally {
          client.release()
        }
      })()
      this.#pooler = p
      p.catch(() => {
        if (this.#pooler === p) this.#pooler = undefined
      })
    }
    return this.#pooler
  }

  async reserve(options: ReserveOptions): Promise<Session> {
    const started = performance.now()
    const client = await this.#connect(started, options.deadline)
    return new PgSession(this, client, started)
  }

  /** `pool.connect()` until the deadline; a client that comes later goes back at once. */
  #connect(started: number, deadline: number): Promise<PgPoolClient> {
    return new Promise((resolve, reject) => {
      let done = false
      const ms = deadline - started
      const expiry = Number.isFinite(ms)
        ? setTimeout(
            () => {
              done = true
              const message = `no connection to ${this.address} was free before the deadline`
              reject({ kind: 'connection', code: 'DEADLINE', message, cause: new Error(message) })
            },
            Math.max(0, ms),
          )
        : undefined
      this.pool.connect().then(
        (client) => {
          if (done) return client.release()
          done = true
          clearTimeout(expiry)
          resolve(client)
        },
        (error: unknown) => {
          if (done) return
          done = true
          clearTimeout(expiry)
          const e = this.toDriverError(error)
          const message = e.message.includes(this.address)
            ? e.message
            : `could not connect to ${this.address}: ${e.message}`
          reject({ ...e, kind: 'connection', message })
        },
      )
    })
  }

  toDriverError(error: unknown): DriverError {
    return toDriverError(error, PG_FIELDS, (_, message) => CONNECTION_MESSAGES.test(message))
  }
}

/** A client checked out of the pool, as a {@link Session}. */
class PgSession implements Session {
  readonly opened: boolean
  pipeline?: (statements: readonly PipelinedStatement[]) => Promise<PromiseSettledResult<StatementResult>[]>
  readonly #driver: PgDriver
  readonly #client: PgPoolClient
  readonly #metered: MeteredSocket
  readonly #base: number
  readonly #atClaim: number
  readonly #life: SessionLifecycle
  readonly #toError: (e: unknown) => DriverError

  constructor(driver: PgDriver, client: PgPoolClient, started: number) {
    this.#driver = driver
    this.#client = client
    this.#toError = (e) => driver.toDriverError(e)
    const onError = (error?: unknown) =>
      this.#life.end(driver.toDriverError(error ?? new Error('client error')))
    const onEnd = () => this.#life.end(closedError(driver.address, 'the connection ended'))
    let unwatch = () => {}
    this.#life = new SessionLifecycle((broken) => {
      unwatch() // the socket outlives the session: its close listeners must not pile up
      // With an error the pool closes the client and drops it (a dead or terminated connection).
      client.release(broken ? new Error(this.#life.cause?.message ?? 'terminated') : undefined)
      client.off('error', onError)
      client.off('end', onEnd)
    })
    const stream = client.connection.stream
    // A TLS client's stream is the TLS socket made after the handshake: metered from now on.
    const metered = driver.meters.of(stream) ?? driver.meters.add(stream, driver.address, false)
    this.#metered = metered
    this.opened = claimOpening(metered, started)
    this.#base = this.opened ? 0 : metered.meter.roundTrips
    this.#atClaim = metered.meter.roundTrips - this.#base
    client.on('error', onError) // while checked out, nobody else listens: an 'error' would be thrown
    client.on('end', onEnd)
    unwatch = metered.meter.onClose(() => {
      const e = metered.meter.closeError
      this.#life.end(closedError(driver.address, e ? e.message : 'the socket closed', e))
    })
    if (client.pipeline === true) this.pipeline = (statements) => this.#pipeline(statements)
  }

  get ended(): Promise<DriverError> {
    return this.#life.ended
  }

  isEnded(): boolean {
    return this.#life.cause !== undefined
  }

  simple(text: string, copies?: readonly (readonly Buffer[])[]): Promise<SimpleResult> {
    if (this.#life.unusable) return Promise.reject(this.#gone())
    const answer =
      copies === undefined || copies.length === 0 ? this.#client.query(text) : this.#copy(text, copies)
    return this.#life.track(answer, this.#toError).then((result) => {
      const list = Array.isArray(result) ? result : [result]
      return {
        lastCommand: list[list.length - 1]?.command ?? '',
        rowSets: list.filter((r) => r.fields.length > 0).map((r) => r.rows),
      }
    })
  }

  /** `text` with the data of its COPY statements written behind it (see `copy-query.ts`). */
  #copy(text: string, copies: readonly (readonly Buffer[])[]): Promise<PgResult | PgResult[]> {
    const base = this.#client.constructor.Query
    if (base === undefined) return Promise.reject(new Error('this pg client has no Query class'))
    const CopyQuery = copyQueryClass(base)
    return new Promise((resolve, reject) => {
      this.#client.query(
        new CopyQuery(text, copies, (error, result) => (error ? reject(error) : resolve(result ?? []))),
      )
    })
  }

  #pipeline(statements: readonly PipelinedStatement[]): Promise<PromiseSettledResult<StatementResult>[]> {
    if (this.#life.unusable) {
      const reason = this.#gone()
      return Promise.resolve(statements.map(() => ({ status: 'rejected', reason })))
    }
    const client = this.#client
    const results: PromiseSettledResult<StatementResult>[] = new Array(statements.length)
    let pending = statements.length
    let done: (value: PromiseSettledResult<StatementResult>[]) => void = () => {}
    const answered = new Promise<PromiseSettledResult<StatementResult>[]>((resolve) => {
      done = resolve
    })
    const settle = (i: number, error: unknown, result: PgResult | PgResult[] | undefined) => {
      if (error) {
        results[i] = { status: 'rejected', reason: this.#toError(error) }
      } else {
        const last = Array.isArray(result) ? result[result.length - 1] : result
        results[i] = { status: 'fulfilled', value: { command: last?.command ?? '', rows: last?.rows ?? [] } }
      }
      if (--pending === 0) done(results)
    }
    // In pipeline mode each query is written as soon as it is queued, corked and uncorked by pg on
    // its own: corked around the whole batch, the statements leave in one write instead of one each.
    // Callbacks rather than promises: pg then makes no promise per query.
    const stream = client.connection.stream
    stream.cork()
    try {
      for (let i = 0; i < statements.length; i++) {
        const s = statements[i] as PipelinedStatement
        const config =
          s.name === undefined
            ? { text: s.text, values: s.params }
            : { name: s.name, text: s.text, values: s.params }
        client.query(config, (error, result) => settle(i, error, result))
      }
    } finally {
      stream.uncork()
    }
    return this.#life.track(answered, this.#toError)
  }

  roundTrips(): number {
    return this.#metered.meter.roundTrips - this.#base
  }

  connectRoundTrips(): number {
    return this.opened ? this.#atClaim : 0
  }

  terminate(): void {
    if (this.#life.terminated) return
    this.#client.connection.stream.destroy()
    this.#life.terminate(closedError(this.#driver.address, 'terminated by pipeflush'))
  }

  release(): void {
    this.#life.release()
  }

  #gone(): DriverError {
    return this.#life.cause ?? closedError(this.#driver.address, 'terminated')
  }
}

/** `host:port` of the pool's server, from its options or connection string (never credentials). */
function addressOf(pool: PgPool): string {
  const o = pool.options
  let host = o.host
  let port = o.port === undefined ? undefined : String(o.port)
  if (o.connectionString !== undefined) {
    try {
      const url = new URL(o.connectionString)
      host ??= decodeURIComponent(url.hostname) || undefined
      port ??= url.port || undefined
      host ??= url.searchParams.get('host') ?? undefined
    } catch {
      // an unparsable connection string: pg reports it when it connects
    }
  }
  host ??= process.env['PGHOST'] ?? 'localhost'
  port ??= process.env['PGPORT'] ?? '5432'
  return host.startsWith('/') ? `${host}/.s.PGSQL.${port}` : `${host}:${port}`
}
