import { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { errors } from '../../errors.ts'
import type { AdapterConnection, DriverAdapter, GiveUp } from '../adapter.ts'
import { ClientEnd } from '../client-end.ts'
import type { DriverError, PipelinedStatement, SimpleResult, StatementResult } from '../driver.ts'
import { closedError, poolWaitError, toDriverError } from '../driver-errors.ts'
import type { MeteredSocket, Meters } from '../socket/meters.ts'
import { changedText, shownText } from '../text-parsing.ts'
import type { PgPool, PgPoolClient, PgResult } from './client-types.ts'
import { guardReading } from './read-guard.ts'
import { simpleQueryClass } from './simple-query.ts'

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
const PG_FIELDS = { constraint: 'constraint', schema: 'schema', table: 'table', column: 'column' } as const

/** Messages node-postgres gives errors of a connection that is gone or could not be made. */
const CONNECTION_MESSAGES =
  /Connection terminated|not queryable|Client was closed|timeout expired|Query read timeout/

/**
 * What pg-pool's `connect()` rejects with when its `connectionTimeoutMillis` passes while the request
 * waits in its queue, every connection in use (a connection that does not open in time is `Connection
 * terminated due to connection timeout`).
 */
const POOL_QUEUE_TIMEOUT = 'timeout exceeded when trying to connect'

/**
 * node-postgres's words when the server answered its SSLRequest with neither `S` nor `N` (its whole
 * first answer): no PostgreSQL server or pooler answers so, whatever the TLS settings. Its message
 * read as a TLS failure ("check the TLS settings") for a port where something else listens.
 */
const NOT_AN_SSL_ANSWER = 'There was an error establishing an SSL connection'

/**
 * The node-postgres adapter. A flush checks a client out of the application's pool. Where the pool's
 * clients pipeline (`new pg.Pool({ pipeline: true })`), a flush is pipelined extended-protocol
 * statements, named so each is parsed once per connection, in the same write as its first execution:
 * a statement new to a connection costs no extra round trip. Otherwise a flush goes as simple-protocol
 * text, one Query message per round trip. Its `meterSockets` wraps the pool's `stream` option so that
 * every client made from then on has a round-trip meter on its socket.
 */
export class PgAdapter implements DriverAdapter {
  readonly name = 'pg' as const
  readonly address: string
  readonly pool: PgPool
  /** COPY data goes behind a simple-protocol message, pipelining pool or not (see `simple-query.ts`). */
  readonly copies = true
  /** Its simple messages go as a query object that counts their completed statements (see `simple-query.ts`). */
  readonly countsCompleted = true
  /** pg-pool hands a client it opened to the request it opened it for. */
  readonly sharesOpenings = false
  /** The application's `pool.end()`, made to wait for pipeflush's requests (see `ClientEnd`). */
  readonly #end: ClientEnd
  /** The reservation whose `pool.connect()` is being called: a socket made meanwhile opens for it. */
  #opening: GiveUp | undefined
  /**
   * Reservations queued by the pool without a socket made for them, oldest first: pg-pool queues a
   * request while it has an idle client (handed over at the next tick) and makes a new client for the
   * next one in the queue then, outside its `connect()` (see {@link #queuedOpening}).
   */
  readonly #queued: GiveUp[] = []
  /** The reservation each socket the pool made opened for (see {@link openedFor}). */
  readonly #openedFor = new WeakMap<Duplex, GiveUp>()
  /** The sockets made for a reservation whose TCP connection is not up yet (see {@link unconnectedFor}). */
  readonly #unconnected = new Set<Socket>()

  /**
   * Throws `INVALID_CONFIG` for a pool given several hosts (see {@link hostsOf}), a connection string
   * node-postgres cannot read, or clients pipeflush cannot use as they are (see {@link checkClients}).
   */
  constructor(pool: PgPool) {
    const hosts = hostsOf(pool)
    if (hosts?.includes(',')) throw errors.pgMultiHost(hosts)
    checkClients(pool)
    this.pool = pool
    this.address = addressOf(pool)
    this.#end = new ClientEnd(() => endedError(this.address))
    // The application's `pool.end()` serves pipeflush's requests queued for a client first: pg-pool,
    // once ending, leaves them waiting (a flush failed after its whole timeout). See `ClientEnd`.
    const end = pool.end
    if (typeof end === 'function')
      pool.end = (callback?: (error?: Error) => void) => {
        if (this.#end.ending) {
          const again = new Error('Called end on pool more than once')
          if (typeof callback !== 'function') return Promise.reject(again)
          callback(again)
          return undefined
        }
        const ended = this.#end.end(undefined, async () => {
          await end.call(pool)
        })
        if (typeof callback !== 'function') return ended
        ended.then(() => callback(), callback)
        return undefined
      }
  }

  get database(): string | undefined {
    const o = this.pool.options as { database?: unknown; connectionString?: string }
    if (typeof o.database === 'string') return o.database
    try {
      const path = o.connectionString === undefined ? '' : new URL(o.connectionString).pathname.slice(1)
      return path === '' ? process.env['PGDATABASE'] : decodeURIComponent(path)
    } catch {
      return undefined
    }
  }

  get pipelines(): boolean {
    return this.pool.options.pipeline === true
  }

  meterSockets(meter: (socket: Duplex, address: string, afterReady: number) => MeteredSocket): void {
    const inner = this.pool.options.stream
    const address = this.address
    this.pool.options.stream = (config: unknown) => {
      const stream = (typeof inner === 'function' ? inner(config) : (inner ?? new Socket())) as Duplex
      guardReading(stream)
      // pg-pool makes a new client, and its socket, within the `connect()` that found none idle, or
      // for the oldest request it queued (see #queued).
      let giveUp = this.#opening
      if (giveUp !== undefined) this.#opening = undefined
      else giveUp = this.#queuedOpening()
      if (giveUp !== undefined) this.#openedFor.set(stream, giveUp)
      // Made for a queued request that gave up already (a flush past its deadline, which pg-pool
      // cannot take out of its queue): nobody waits for it. Ended once its opening began (connecting
      // a socket ended before undoes the end), or on a silent server it would hold a slot of the
      // pool, and the pool's end, until the network came back.
      if (giveUp?.given === true) setImmediate(() => stream.destroy())
      // node's `connect` resets `write` on the socket: put the meter on once connected, before the
      // driver's first write (its own 'connect' listener is added after this one).
      if (stream instanceof Socket && stream.pending) {
        // Until then, known as unconnected (see `unconnectedFor`).
        if (giveUp !== undefined) this.#unconnected.add(stream)
        stream.once('close', () => this.#unconnected.delete(stream))
        stream.once('connect', () => {
          this.#unconnected.delete(stream)
          meter(stream, address, 0)
        })
      } else meter(stream, address, 0)
      return stream
    }
  }

  admit(): (() => void) | DriverError {
    return this.#end.admit()
  }

  /**
   * The reservation (its `giveUp`) whose `acquire` made the pool open `socket`; undefined for a
   * socket the application's own queries opened, or one made otherwise.
   */
  openedFor(socket: Duplex): GiveUp | undefined {
    return this.#openedFor.get(socket)
  }

  /**
   * The sockets the pool made for the reservation `giveUp` that are not connected yet: a host that
   * drops the connection's packets (a failover's old address, a firewall) leaves one so until the
   * system gives up, minutes later, pg having no connect timeout by default; it holds a slot of the
   * pool all along.
   */
  unconnectedFor(giveUp: GiveUp): readonly Duplex[] {
    const out: Duplex[] = []
    for (const socket of this.#unconnected) if (this.#openedFor.get(socket) === giveUp) out.push(socket)
    return out
  }

  /**
   * The reservation a socket the pool makes outside any `connect()` opens for: the oldest queued one,
   * when every request the pool queued is pipeflush's (the one it serves taken from its queue, the
   * others still in it). When the application's own requests are queued too (a pool Drizzle or the
   * application shares), none: the socket may be theirs, and ending it would fail them.
   */
  #queuedOpening(): GiveUp | undefined {
    const waiting = (this.pool as { waitingCount?: unknown }).waitingCount
    if (typeof waiting !== 'number' || waiting + 1 !== this.#queued.length) return undefined
    return this.#queued.shift()
  }

  acquire(_meters?: Meters, giveUp?: GiveUp, admitted?: boolean): Promise<AdapterConnection> {
    if (this.#end.ending && admitted !== true) return Promise.reject(this.#end.ended())
    const done = this.#end.begin()
    // The pool's callback form: one promise, where its promise form and a `then` made three.
    return new Promise((resolve, reject) => {
      let queued = false
      let settled = false
      const answer = (error: unknown, client: PgPoolClient | undefined) => {
        settled = true
        if (queued) {
          queued = false
          const at = this.#queued.indexOf(giveUp!)
          if (at >= 0) this.#queued.splice(at, 1)
        }
        if (error !== undefined && error !== null) {
          done()
          reject(error)
        } else if (client === undefined) {
          done()
          reject(new Error('the pool answered neither an error nor a client'))
        } else resolve(new PgConnection(this, client, done))
      }
      try {
        // A pool that takes no callback answers by its promise (pg-pool's own answers undefined).
        this.#opening = giveUp
        let answered: unknown
        let made = false
        try {
          answered = this.pool.connect(answer)
        } finally {
          // A socket made within the call took the reservation (see `meterSockets`).
          made = giveUp !== undefined && this.#opening === undefined
          this.#opening = undefined
        }
        if (giveUp !== undefined && !made && !settled) {
          queued = true
          this.#queued.push(giveUp)
        }
        if (typeof (answered as Promise<PgPoolClient> | undefined)?.then === 'function')
          (answered as Promise<PgPoolClient>).then(
            (client) => answer(undefined, client),
            (error: unknown) => answer(error ?? new Error('the pool refused a connection'), undefined),
          )
      } catch (e) {
        done()
        reject(e) // refused at once (the pool ending): as a refusal later
      }
    })
  }

  toDriverError(error: unknown): DriverError {
    if (error instanceof Error && error.message === POOL_QUEUE_TIMEOUT)
      return poolWaitError(this.pool.options.connectionTimeoutMillis, error)
    if (error instanceof Error && error.message === NOT_AN_SSL_ANSWER) {
      const message = `the server at ${this.address} answered the SSLRequest with neither S nor N, as no PostgreSQL server or pooler does: is one listening there?`
      return { kind: 'connection', message, cause: error }
    }
    return toDriverError(error, PG_FIELDS, (_, message) => CONNECTION_MESSAGES.test(message))
  }
}

/** A client checked out of the pool. */
class PgConnection implements AdapterConnection {
  readonly pipeline?: (
    statements: readonly PipelinedStatement[],
  ) => Promise<PromiseSettledResult<StatementResult>[]>
  readonly #adapter: PgAdapter
  readonly #client: PgPoolClient
  /** Tells the pool's `end()` this client is given back (see `ClientEnd`). */
  readonly #done: () => void

  /**
   * An error the client emitted before {@link watchEnd} listened, told to it then. pg-pool hands over
   * a new client from inside the parsing of its ReadyForQuery, having taken off its own listener: a
   * FATAL read in the same chunk (the server ending the session: `idle_session_timeout`, a terminate,
   * a shutdown) is emitted before the session is made, and an 'error' nobody listens to is thrown,
   * ending the process.
   */
  #early: unknown
  readonly #listenEarly = (error?: unknown) => {
    this.#early ??= error ?? new Error('client error')
  }

  constructor(adapter: PgAdapter, client: PgPoolClient, done: () => void) {
    this.#adapter = adapter
    this.#client = client
    this.#done = done
    // In the pool's callback, synchronously: see #early.
    client.on('error', this.#listenEarly)
    if (client.pipeline === true) this.pipeline = (statements) => this.#pipeline(statements)
  }

  simple(text: string, copies: readonly Iterable<Buffer>[] = NO_COPIES): Promise<SimpleResult> {
    const base = this.#client.constructor.Query
    if (base === undefined) return Promise.reject(new Error('this pg client has no Query class'))
    const SimpleQuery = simpleQueryClass(base)
    return new Promise<PgResult | PgResult[]>((resolve, reject) => {
      // A send refused at once fails like one that failed on the wire.
      this.#client.query(
        new SimpleQuery(text, copies, (error, result) => (error ? reject(error) : resolve(result ?? []))),
      )
    }).then(simpleResult)
  }

  metered(meters: Meters): MeteredSocket | undefined {
    // A TLS client's stream is the TLS socket made after the handshake: metered from now on.
    const stream = this.#client.connection.stream
    guardReading(stream)
    return meters.of(stream) ?? meters.add(stream, this.#adapter.address, false)
  }

  processId(): number | undefined {
    const pid = this.#client.processID
    return typeof pid === 'number' ? pid : undefined
  }

  watchEnd(onEnd: (cause: DriverError) => void): () => void {
    const client = this.#client
    const adapter = this.#adapter
    const onError = (error?: unknown) => onEnd(adapter.toDriverError(error ?? new Error('client error')))
    const onClientEnd = () => onEnd(closedError(adapter.address, 'the connection ended'))
    client.on('error', onError) // while checked out, nobody else listens: an 'error' would be thrown
    client.on('end', onClientEnd)
    client.off('error', this.#listenEarly)
    // Told once the caller holds what this returns (it stops listening when told).
    const early = this.#early
    if (early !== undefined) queueMicrotask(() => onError(early))
    return () => {
      client.off('error', onError)
      client.off('end', onClientEnd)
    }
  }

  release(): void {
    this.#client.off('error', this.#listenEarly)
    this.#client.release()
    this.#done()
  }

  discard(cause: DriverError): void {
    this.#client.off('error', this.#listenEarly)
    // With an error the pool closes the client and drops it (a dead or terminated connection).
    this.#client.release(new Error(cause.message))
    this.#done()
  }

  destroy(): void {
    this.#client.connection.stream.destroy()
  }

  #pipeline(statements: readonly PipelinedStatement[]): Promise<PromiseSettledResult<StatementResult>[]> {
    const client = this.#client
    const toError = (e: unknown) => this.#adapter.toDriverError(e)
    const results: PromiseSettledResult<StatementResult>[] = new Array(statements.length)
    let pending = statements.length
    let done: (value: PromiseSettledResult<StatementResult>[]) => void = () => {}
    const answered = new Promise<PromiseSettledResult<StatementResult>[]>((resolve) => {
      done = resolve
    })
    const settle = (i: number, error: unknown, result: PgResult | PgResult[] | undefined) => {
      if (error) {
        results[i] = { status: 'rejected', reason: toError(error) }
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
      const prepared = preparedOf(client)
      for (let i = 0; i < statements.length; i++) {
        const s = statements[i] as PipelinedStatement
        const config =
          s.name === undefined || !prepares(prepared, s.name)
            ? { text: s.text, values: s.params }
            : { name: s.name, text: s.text, values: s.params }
        client.query(config, (error, result) => settle(i, error, result))
      }
    } finally {
      stream.uncork()
    }
    return answered
  }
}
/**
 * The hosts the pool's options name, as written (`host`, else the connection string's authority
 * without credentials, or its `host` parameter), or undefined. Read from the text: a URL with a port
 * per host is no valid URL.
 */
export function hostsOf(pool: PgPool): string | undefined {
  const o = pool.options
  if (typeof o.host === 'string') return o.host
  const url = o.connectionString
  if (url === undefined) return undefined
  const authority = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#]*)/i.exec(url)?.[1]
  if (authority) return authority
  const param = /[?&]host=([^&#]*)/.exec(url)?.[1]
  return param === undefined ? undefined : decodeURIComponent(param)
}

/**
 * `host:port` of the pool's server, from its options or connection string (never credentials);
 * `INVALID_CONFIG` for a connection string node-postgres cannot read.
 */
function addressOf(pool: PgPool): string {
  const o = pool.options
  let host = o.host
  let port = o.port === undefined ? undefined : String(o.port)
  if (o.connectionString !== undefined) {
    const parts = connectionParts(o.connectionString)
    if (parts === null) throw errors.pgInvalidUrl()
    host ??= parts.host
    port ??= parts.port
  }
  host ??= process.env['PGHOST'] ?? 'localhost'
  port ??= process.env['PGPORT'] ?? '5432'
  return host.startsWith('/') ? `${host}/.s.PGSQL.${port}` : `${host}:${port}`
}

/**
 * The host and port of a connection string as node-postgres reads them (`pg-connection-string`): a
 * socket path's first word; a `socket:` URL's path; else a URL relative to `postgres://base` (spaces
 * and stray `%` encoded first), tried again with a placeholder host where it names none (`postgres://user@/db?host=...`),
 * its `host` and `port` parameters first. Null when neither parses: pg fails every connection then
 * ("Invalid URL").
 */
export function connectionParts(text: string): { host?: string; port?: string } | null {
  if (text.startsWith('/')) return { host: text.split(' ')[0]! }
  const str = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(text)
    ? encodeURI(text).replace(/%25(\d\d)/g, '%$1')
    : text
  let url: URL
  let hostless = false
  try {
    url = new URL(str, 'postgres://base')
  } catch {
    try {
      url = new URL(str.replace('@/', '@___DUMMY___/'), 'postgres://base')
      hostless = true
    } catch {
      return null
    }
  }
  // `socket:/dir?db=...`: the socket's directory is the path.
  const socketDir = url.protocol === 'socket:' ? decodeURI(url.pathname) : undefined
  const named = hostless ? '' : decodeURIComponent(url.hostname.replace(/^\[(.+)\]$/, '$1'))
  const host = socketDir ?? (url.searchParams.get('host') || named || undefined)
  const port = url.searchParams.get('port') || url.port || undefined
  return { ...(host === undefined ? {} : { host }), ...(port === undefined ? {} : { port }) }
}

/** No COPY data behind a message. */
const NO_COPIES: readonly Iterable<Buffer>[] = []

/**
 * How many statements pipeflush prepares on one connection, at most. The server keeps a prepared
 * statement (its plan: tens of kilobytes for a graph read's) for the session's life, and nothing
 * takes it back: texts that never repeat (a page's `limit` and `offset` are written in a read's text,
 * an application's own `select`s, Kysely's IN lists of each length) would grow the session's memory
 * without bound. Past this many, a connection's new texts go unnamed (parsed at each send, as pg
 * sends an unnamed statement, in the same pipeline); those it prepared stay named.
 */
export const PREPARED_PER_CONNECTION = 256

const preparedOn = new WeakMap<object, Set<string>>()

/** The names of the statements pipeflush prepared on `client`'s connection (its session's). */
function preparedOf(client: PgPoolClient): Set<string> {
  // Keyed by the connection (a client reconnected by the pool is a new client, a new session).
  const key = client.connection
  let names = preparedOn.get(key)
  if (names === undefined) {
    names = new Set()
    preparedOn.set(key, names)
  }
  return names
}

/**
 * Whether the statement `name` goes named (prepared once) on the connection that prepared `names`:
 * one it prepared already, or a new one while it holds fewer than {@link PREPARED_PER_CONNECTION}.
 */
function prepares(names: Set<string>, name: string): boolean {
  if (names.has(name)) return true
  if (names.size >= PREPARED_PER_CONNECTION) return false
  names.add(name)
  return true
}

/** A simple-protocol answer: one result per statement, or the only one's. */
function simpleResult(result: PgResult | PgResult[]): SimpleResult {
  const list = Array.isArray(result) ? result : [result]
  return {
    lastCommand: list[list.length - 1]?.command ?? '',
    rowSets: list.filter((r) => r.fields.length > 0).map((r) => r.rows),
  }
}

/** What pipeflush refuses to start once the application called `pool.end()`, in pg-pool's words. */
function endedError(address: string): DriverError {
  const message = `cannot use the pool of ${address}: Cannot use a pool after calling end on the pool`
  return { kind: 'connection', code: 'CONNECTION_ENDED', message, cause: new Error(message) }
}

/** What {@link checkClients} asks of a client made and never connected. */
interface UnconnectedClient {
  readonly pipeline?: unknown
  getTypeParser?(oid: number, format: 'text'): unknown
}

/** The text type's oid. */
const TEXT_OID = 25

/**
 * Refuses (`INVALID_CONFIG`) a pool whose clients pipeflush cannot use as they are, told by a client
 * of the pool's class made with its `types` and `pipeline: true`, never connected:
 * - `pipeline: true` on clients that do not keep it (node-postgres older than 8.23 ignores it: the
 *   flushes would go unpipelined and unprepared without a word);
 * - a parser for the type text that changes texts (`types.setTypeParser(25, ...)`, or the pool's
 *   `types`): every column pipeflush reads is selected as text (see `text-parsing.ts`).
 * Nothing is refused where it cannot be told (a pool without its `Client` class, a class that
 * refuses to be made so).
 */
function checkClients(pool: PgPool): void {
  const Client = (pool as { Client?: unknown }).Client
  if (typeof Client !== 'function') return
  let client: UnconnectedClient
  try {
    client = new (Client as new (config: object) => UnconnectedClient)({
      pipeline: true,
      types: pool.options.types,
    })
  } catch {
    return
  }
  if (pool.options.pipeline === true && client.pipeline !== true) throw errors.pgNoPipeline()
  const parse =
    typeof client.getTypeParser === 'function' ? client.getTypeParser(TEXT_OID, 'text') : undefined
  if (typeof parse !== 'function') return
  const changed = changedText(parse as (text: string) => unknown)
  if (changed === undefined) return
  throw errors.textParsed(
    "The pg.Pool's parser for the type text (`types.setTypeParser(25, ...)`, or the pool's `types`)",
    shownText(changed.from),
    shownText(changed.to),
    "Give EntityManager.connect a pool whose `types` leave text as it is, such as `types: { getTypeParser: (oid, format) => (oid === 25 ? (text) => text : pg.types.getTypeParser(oid, format)) }` (the application's own queries may keep the parser on another pool).",
  )
}
