import type { Socket } from 'node:net'
import type { Driver, DriverError, Param, ReserveOptions, Row, Session, SimpleResult } from '../driver.ts'
import { closedError, deadlineError, toDriverError } from '../driver-errors.ts'
import { inlineParams } from '../inline-params.ts'
import { SessionLifecycle } from '../session-lifecycle.ts'
import { claimOpening, type MeteredSocket, Meters, openingRoundTrips } from '../socket/meters.ts'
import { cancelKeyOf } from '../socket/socket-meter.ts'
import type {
  PostgresJsConnection,
  PostgresJsQuery,
  PostgresJsReserved,
  PostgresJsResult,
  PostgresJsSql,
} from './client-types.ts'
import { guardConnection, type SocketState } from './connection-guard.ts'
import { feedCopies } from './copy-feed.ts'
import { socketFactory } from './socket-factory.ts'

/** postgres.js's names of the server's error fields (`connection.js` `errorFields`). */
const POSTGRES_JS_FIELDS = {
  constraint: 'constraint_name',
  table: 'table_name',
  column: 'column_name',
} as const

/** Is `client` a postgres.js `sql` function (told by shape: pipeflush does not import the driver)? */
export function isPostgresJs(client: unknown): client is PostgresJsSql {
  const c = client as Partial<PostgresJsSql> | null
  return (
    typeof client === 'function' &&
    typeof c?.unsafe === 'function' &&
    typeof c.reserve === 'function' &&
    typeof c.begin === 'function' &&
    typeof c.options === 'object' &&
    c.options !== null &&
    Array.isArray(c.options.host)
  )
}

/**
 * The postgres.js adapter. Every flush statement goes as simple-protocol text (one Query message per
 * round trip): postgres.js describes a parameterized statement new to a connection before executing
 * it, a round trip that also stalls everything written behind it, whereas a simple query never waits.
 * On creation it sets pipeflush's socket factory on the client (see `socket-factory.ts`): TCP_NODELAY,
 * SNI and multi-host failover kept, and a round-trip meter on every connection opened from then on.
 *
 * @example
 * const driver = new PostgresJsDriver(postgres(url))
 * const session = await driver.reserve({ deadline: performance.now() + 5000 })
 */
export class PostgresJsDriver implements Driver {
  readonly name = 'postgres.js' as const
  readonly pipelines = false
  /**
   * COPY data goes when the server asks for it (see `copy-feed.ts`): a flush with a COPY takes one
   * round trip more than on node-postgres, which writes the data with the statement.
   */
  readonly copies = true
  readonly address: string
  readonly sql: PostgresJsSql
  readonly meters = new Meters()
  /** Whether the socket of a cancel key ended, for the connection guard. */
  readonly sockets: SocketState = { ended: (key) => this.meters.byKey(key)?.meter.closed }
  #pooler: Promise<boolean> | undefined
  /** Sockets whose close postgres.js handled (a macrotask after the close: see `socket-factory.ts`). */
  #driverCloses = 0

  constructor(sql: PostgresJsSql) {
    this.sql = sql
    const o = sql.options
    this.address = o.path ? String(o.path) : o.host.map((h, i) => `${h}:${o.port[i] ?? o.port[0]}`).join(',')
    o.socket = socketFactory(
      o.socket,
      (socket) => {
        // The array types a connection fetches are the client's, shared by all its connections: once
        // one connection fetched them, later ones skip the query (a round trip each), whose failure
        // postgres.js 3.4.9 leaves as an unhandled rejection (`fetchArrayTypes` is not awaited).
        if (o.fetch_types !== false && Object.keys(o.shared?.typeArrayMap ?? {}).length > 0)
          o.fetch_types = false
        const named = socket as Socket & { host?: unknown; port?: unknown }
        // postgres.js reads fetch_types as it starts the connection, within microtasks of this call.
        const typeQuery = o.fetch_types === false ? 0 : 1
        const metered = this.meters.add(
          socket,
          o.path ? String(o.path) : `${String(named.host)}:${String(named.port)}`,
          true,
          typeQuery,
        )
        // Without the type fetch, postgres.js 3.4.9 never hands a connection opened for a reservation to
        // it (its ReadyForQuery returns early): its 'drain' listener hands an idle connection to the pool.
        // Nothing else can hold the connection between its first ReadyForQuery and the next macrotask.
        metered.meter.onReady(() => setImmediate(() => socket.emit('drain')))
      },
      () => this.#driverCloses++,
    )
  }

  /** Seconds postgres.js waits for a connection to open (its `connect_timeout`, default 30). */
  get connectTimeoutMs(): number {
    const seconds = Number(this.sql.options.connect_timeout ?? 30)
    return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : Number.POSITIVE_INFINITY
  }

  async query(text: string, params: readonly Param[] = []): Promise<readonly Row[]> {
    const q = this.sql.unsafe(params.length === 0 ? text : inlineParams(text, params))
    try {
      const result = await q
      return rowsOfLast(result)
    } catch (e) {
      throw this.toDriverError(e)
    }
  }

  detectPooler(): Promise<boolean> {
    if (!this.#pooler) {
      const p = (async () => {
        const result = (await this.sql.unsafe('select pg_backend_pid()::int4 as pid')) as PostgresJsResult
        const keyPid = result.state?.pid
        return typeof keyPid === 'number' && Number(result[0]?.['pid']) !== keyPid
      })()
      this.#pooler = p
      p.catch(() => {
        if (this.#pooler === p) this.#pooler = undefined
      })
    }
    return this.#pooler
  }

  reserve(options: ReserveOptions): Promise<Session> {
    const started = performance.now()
    return this.#reserve(started, options.deadline).then(
      (reserved) => new PostgresJsSession(this, reserved, started),
    )
  }

  /**
   * `sql.reserve()`, failing when the deadline passes, or when connection attempts fail for longer than
   * `connect_timeout` (postgres.js itself reconnects forever while a reservation waits, when the server
   * closes each new connection before it is ready). postgres.js can drop a waiting reservation: when
   * the connection it waits for closes, the pool reconnects it for that request, and hands the new
   * connection to nobody (its ReadyForQuery returns early for a reservation). So the reservation is
   * asked again when postgres.js handled a connection's close and one became ready since the last
   * ask, and every second while attempts fail. The first answer wins; later ones are released at once.
   */
  #reserve(started: number, deadline: number): Promise<PostgresJsReserved> {
    const failuresBefore = this.meters.failures
    return new Promise((resolve, reject) => {
      let done = false
      let lastAsk = started
      let openedAtAsk = this.meters.opened
      let endedAtAsk = this.#driverCloses
      const finish = (settle: () => void): boolean => {
        if (done) return false
        done = true
        clearInterval(watch)
        clearTimeout(expiry)
        settle()
        return true
      }
      const ask = () => {
        lastAsk = performance.now()
        openedAtAsk = this.meters.opened
        endedAtAsk = this.#driverCloses
        this.sql.reserve().then(
          (reserved) => {
            if (!finish(() => resolve(reserved))) reserved.release()
          },
          (error: unknown) => {
            finish(() => reject(this.#connectError(error)))
          },
        )
      }
      const watch = setInterval(() => {
        const now = performance.now()
        // postgres.js handled a close, and a connection became ready since: it may have been reopened
        // for this request.
        const reopened = this.#driverCloses > endedAtAsk && this.meters.opened > openedAtAsk
        if (reopened && now - lastAsk >= 100) return ask()
        if (this.meters.failures === failuresBefore) return
        if (now - started >= this.connectTimeoutMs) {
          finish(() => reject(this.#cannotConnect()))
        } else if (now - lastAsk >= 1000) {
          ask()
        }
      }, 100)
      const ms = deadline - started
      const expiry = Number.isFinite(ms)
        ? setTimeout(() => finish(() => reject(deadlineError(this.address))), Math.max(0, ms))
        : undefined
      ask()
    })
  }

  /** A reservation's failure, naming where the client tried to connect. */
  #connectError(error: unknown): DriverError {
    const e = this.toDriverError(error)
    const where = this.meters.lastFailure?.address ?? this.address
    if (e.kind !== 'connection' || e.message.includes(where)) return e
    return { ...e, message: `could not connect to ${where}: ${e.message}` }
  }

  #cannotConnect(): DriverError {
    const last = this.meters.lastFailure
    const where = last?.address ?? this.address
    const message = `could not open a connection to ${where} within connect_timeout (${this.connectTimeoutMs / 1000} s): ${last?.reason ?? 'no answer'}`
    return { kind: 'connection', code: 'CONNECT_TIMEOUT', message, cause: new Error(message) }
  }

  toDriverError(error: unknown): DriverError {
    // postgres.js writes to a socket it already dropped as a TypeError (`socket.write` of null).
    return toDriverError(
      error,
      POSTGRES_JS_FIELDS,
      (_, message) => error instanceof TypeError && /null \(reading 'write'\)/.test(message),
    )
  }
}

/** A reserved postgres.js connection, as a {@link Session}. */
class PostgresJsSession implements Session {
  readonly #driver: PostgresJsDriver
  readonly #reserved: PostgresJsReserved
  readonly #started: number
  /** When the reservation was answered. */
  readonly #answered = performance.now()
  /** Each COPY's data goes when the server asks for it (see `copy-feed.ts`). */
  readonly copyRoundTrips = 1
  /** Round trips of every open socket when the reservation was answered. */
  readonly #counts: Map<MeteredSocket, number>
  readonly #life: SessionLifecycle
  #metered: MeteredSocket | undefined
  /** Whether this session counts the opening of its connection (decided once, when it is found). */
  #opened = false
  /** Stops listening for the socket's close (the socket outlives the session: no listener may pile up). */
  #unwatch: () => void = () => {}
  #connection: PostgresJsConnection | undefined
  #onclose: ((error: unknown) => void) | undefined
  #first: PostgresJsQuery | undefined

  constructor(driver: PostgresJsDriver, reserved: PostgresJsReserved, started: number) {
    this.#driver = driver
    this.#reserved = reserved
    this.#started = started
    this.#counts = driver.meters.counts()
    this.#life = new SessionLifecycle((broken) => {
      const c = this.#connection
      if (c && c.onclose === this.#onclose) c.onclose = null
      this.#unwatch()
      // A connection whose socket closed is the pool's again (it reconnects it on demand); releasing
      // it would put a dead connection among the open ones.
      if (!broken) reserved.release()
    })
  }

  get ended(): Promise<DriverError> {
    return this.#life.ended
  }

  get opened(): boolean {
    return this.#identify() !== undefined && this.#opened
  }

  isEnded(): boolean {
    this.#identify()
    return this.#life.cause !== undefined
  }

  simple(text: string, copies?: readonly (readonly Buffer[])[]): Promise<SimpleResult> {
    if (this.isEnded() || this.#life.terminated) {
      return Promise.reject(this.#life.cause ?? closedError(this.#driver.address, 'terminated'))
    }
    const q = this.#reserved.unsafe(text, [], { onexecute: (c) => this.#learn(c) })
    if (copies !== undefined && copies.length > 0) feedCopies(q, copies)
    this.#first ??= q
    // The query is written one microtask later; by the next macrotask its connection is known.
    setImmediate(() => this.#identify())
    // Identified again when it answers, so that an answer after the socket ended is refused (see track).
    const answer = Promise.resolve(q).then((result) => {
      this.#identify()
      return result
    })
    return this.#life.track(answer, (e) => this.#driver.toDriverError(e)).then(simpleResult)
  }

  roundTrips(): number | undefined {
    const m = this.#identify()
    if (m === undefined) return undefined
    const base = this.opened ? 0 : (this.#counts.get(m) ?? m.meter.roundTrips)
    return m.meter.roundTrips - base
  }

  connectRoundTrips(): number | undefined {
    const m = this.#identify()
    if (m === undefined) return undefined
    return this.opened ? (this.#counts.get(m) ?? 0) : 0
  }

  /**
   * postgres.js opens a connection for a reservation that finds none idle, then hands the reservation
   * whichever connection is free first: often one a finished flush gave back, while the new one is
   * still opening. The openings begun while this reservation waited that no session claimed are
   * claimed here and counted once each is over.
   */
  openings(deadline: number): Promise<number> {
    const mine = this.#identify()
    const found = this.#driver.meters
      .unclaimedOpenings(this.#started, this.#answered)
      .filter((m) => m !== mine)
    for (const m of found) m.openingClaimed = true
    return Promise.all(found.map((m) => openingRoundTrips(m, deadline))).then((trips) =>
      trips.reduce((sum, n) => sum + n, 0),
    )
  }

  terminate(): void {
    if (this.#life.terminated) return
    const m = this.#identify()
    if (m !== undefined) m.socket.destroy()
    else this.#connection?.terminate()
    this.#life.terminate(closedError(this.#driver.address, 'terminated by pipeflush'))
  }

  release(): void {
    this.#life.release()
  }

  /** The metered socket of this connection, once its first query ran (found by its cancel key). */
  #identify(): MeteredSocket | undefined {
    if (this.#metered) return this.#metered
    const state = this.#first?.state
    if (!state || state.pid === null || state.secret === null) return undefined
    const m = this.#driver.meters.byKey(cancelKeyOf(state.pid, state.secret))
    if (m === undefined) return undefined
    this.#metered = m
    this.#opened = claimOpening(m, this.#started)
    this.#unwatch = m.meter.onClose(() => {
      const e = m.meter.closeError
      this.#life.end(closedError(this.#driver.address, e ? e.message : 'the socket closed', e))
    })
    return m
  }

  /**
   * Hooks the connection's close (the pool calls `onclose` once when its socket closes) and guards the
   * connection against writes after its socket ended (`connection-guard.ts`).
   */
  #learn(c: PostgresJsConnection): true {
    if (this.#connection === undefined) {
      this.#connection = c
      this.#onclose = (error) => this.#life.end(this.#driver.toDriverError(error))
      c.onclose = this.#onclose
      guardConnection(c, this.#driver.sockets, this.#driver.address)
    }
    return true // a falsy result would make postgres.js stop pipelining on this connection
  }
}

/** The rows of the last statement of a (possibly multi-statement) simple query's result. */
function rowsOfLast(result: PostgresJsResult | PostgresJsResult[]): readonly Row[] {
  return rowsOf(isResultList(result) ? result[result.length - 1] : result)
}

/**
 * The rows of a result. postgres.js 3.4.9 keeps its row index across a lost connection (it resets it
 * only when a statement completes): the first result after reconnecting has empty slots before its
 * rows, which are dropped here.
 */
function rowsOf(result: PostgresJsResult | undefined): readonly Row[] {
  if (result === undefined) return []
  return result.length > 0 && !(0 in result) ? result.filter(() => true) : result
}

/**
 * postgres.js answers a multi-statement simple query with one result per statement that returned a
 * row description (a statement without rows updates the command of the result before it), or a single
 * result when at most one did.
 */
function simpleResult(result: PostgresJsResult | PostgresJsResult[]): SimpleResult {
  const list = isResultList(result) ? result : [result]
  const last = list[list.length - 1]
  return {
    lastCommand: last?.command ?? '',
    rowSets: list.filter((r) => Array.isArray(r.columns) && r.columns.length > 0).map(rowsOf),
  }
}

function isResultList(result: PostgresJsResult | PostgresJsResult[]): result is PostgresJsResult[] {
  return !('command' in result) && result.length > 0 && Array.isArray(result[0])
}
