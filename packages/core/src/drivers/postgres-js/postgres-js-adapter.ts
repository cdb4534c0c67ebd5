import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { AdapterConnection, DriverAdapter, GiveUp } from '../adapter.ts'
import { ClientEnd } from '../client-end.ts'
import type { DriverError, Row, SimpleResult } from '../driver.ts'
import { COMPLETED, serverSqlState, toDriverError } from '../driver-errors.ts'
import type { MeteredSocket, Meters } from '../socket/meters.ts'
import { type Admission, cancelKeyOf } from '../socket/socket-meter.ts'
import type {
  PostgresJsConnection,
  PostgresJsQuery,
  PostgresJsReserved,
  PostgresJsResult,
  PostgresJsSql,
} from './client-types.ts'
import { checkColumnTransform } from './column-transform.ts'
import { closedConnectionError, guardConnection, guardedConnectionOf } from './connection-guard.ts'
import { feedCopies } from './copy-feed.ts'
import { guardDriverQueries } from './driver-queries.ts'
import { REFUSED, reserveConnection } from './reservation.ts'
import { endOpening, socketFactory } from './socket-factory.ts'
import { checkValueTransform } from './value-transform.ts'

/** postgres.js's names of the server's error fields (the keys of the errors it throws). */
const POSTGRES_JS_FIELDS = {
  constraint: 'constraint_name',
  schema: 'schema_name',
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
 * Its `meterSockets` sets pipeflush's socket factory on the client (see `socket-factory.ts`):
 * TCP_NODELAY, SNI and multi-host failover kept, and a round-trip meter on every connection opened
 * from then on.
 */
export class PostgresJsAdapter implements DriverAdapter {
  readonly name = 'postgres.js' as const
  readonly pipelines = false
  readonly copies = true
  /**
   * COPY data goes when the server asks for it (see `copy-feed.ts`): a flush with a COPY takes one
   * round trip more than on node-postgres, which writes the data with the statement.
   */
  readonly copyRoundTrips = 1
  /** postgres.js keeps no count of a message's completed statements: the socket meters count them. */
  readonly countsCompleted = false
  /** The pool hands a waiting reservation whichever connection is free first. */
  readonly sharesOpenings = true
  readonly address: string
  readonly sql: PostgresJsSql
  /** Sockets whose close postgres.js handled (a macrotask after the close: see `socket-factory.ts`). */
  #closesHandled = 0
  #meters: Meters | undefined
  /** The cancel key objects of the connections the guard watches: at most one per connection of the pool. */
  readonly #guardedStates = new Set<NonNullable<PostgresJsQuery['state']>>()
  /** The application's `sql.end()`, made to wait for pipeflush's reservations and openings. */
  readonly #end: ClientEnd
  /**
   * Connections whose socket closed under a query of pipeflush's, each with the cancel key it then had:
   * postgres.js's own `end()` waits for them forever (see {@link PostgresJsAdapter.#unstick}).
   */
  readonly #dropped = new Map<PostgresJsConnection, () => string | undefined>()
  /**
   * Requests of reservations that are over which postgres.js still holds (see `ReservationWatch.leave`):
   * after a lost connection, postgres.js reconnects for such a request after its backoff (up to some
   * 20 s), and its `end()` waits for that.
   */
  readonly #leftBehind = new Map<Promise<unknown>, number>()
  /**
   * Releases of the end's holds waiting for the next reopening to be over, each with the closes
   * postgres.js had handled when it was taken (see `#awaitReopening`).
   */
  #afterOpening: { readonly closes: number; readonly release: () => void }[] = []
  /**
   * Requests rejected while their connection opened, left behind until a reopening is ready, each
   * with the closes postgres.js had handled then and the time by which postgres.js has begun to
   * reopen for it (see `#awaitReopening`).
   */
  readonly #reopenedFor = new Map<Promise<unknown>, { readonly closes: number; readonly reopenBy: number }>()
  /** Reopenings to refuse, one per request rejected when its connection timed out (see `#refuseReopening`). */
  #reopeningRefusals: ReopeningRefusal[] = []
  /**
   * The end's hold of each opening refused, by the error it was refused with: released once
   * postgres.js handled its close (see `#refusal`).
   */
  readonly #refused = new Map<Error, () => void>()
  /** Reservations asked of postgres.js that have not settled (see `#endSilentOpenings`). */
  #reserving = 0
  /** The client's `end()` settled: no connection opens any more (see `#refusal`). */
  #ended = false
  /** postgres.js's own `end()` was called: each of its connections is ending (see `#endIfIdle`). */
  #driverEnding = false
  /** The sockets made for the client's connections that are not closed. */
  readonly #sockets = new Set<Socket>()
  /**
   * A connection of the client closed while it fetched the array types, and the sockets of those
   * fetching them now (see the end's bound).
   */
  #typeFetchCut = false
  readonly #fetchingTypes = new Set<Socket>()
  /**
   * Until when postgres.js may yet reconnect a connection that closed: the latest of each close's time
   * plus postgres.js's longest backoff then (see `#closeHandled`).
   */
  #reconnectsUntil = Number.NEGATIVE_INFINITY
  /** Openings to refuse for requests of given-up reservations postgres.js still holds (see `#strand`). */
  #refusals = 0
  /** Why those reservations were given up, and until when their refusals stand. */
  #strandedWhy: DriverError | undefined
  #refuseUntil = Number.NEGATIVE_INFINITY

  constructor(sql: PostgresJsSql) {
    checkColumnTransform(sql.options)
    checkValueTransform(sql.options)
    guardDriverQueries(sql)
    this.sql = sql
    const o = sql.options
    this.address = o.path ? String(o.path) : o.host.map((h, i) => `${h}:${o.port[i] ?? o.port[0]}`).join(',')
    this.#end = new ClientEnd(() => endedError(this.address))
    // The application's `sql.end()` waits for pipeflush's reservations and openings (README, item 18).
    const client = sql as unknown as { end?: unknown }
    const end = client.end
    if (typeof end === 'function')
      client.end = (options?: { timeout?: number | null }) =>
        this.#end.end(options?.timeout ?? undefined, (left) => {
          // Requests pipeflush left to postgres.js (a lost connection's): its end waits for them to
          // be served, after its reconnect's backoff, and for the connection it reopens for one once the
          // end refused it (see `#refusal`) until its bound: bounded then, where the application set
          // no bound or a longer one.
          // A connection cut while it fetched the array types (or fetching them now, which a cut may
          // yet end) keeps that query as its own: postgres.js's end waits for it until the connection
          // opens again, which after the end it never does.
          const typeFetch = this.#typeFetchCut || this.#fetchingTypes.size > 0
          // A connection postgres.js may yet reconnect (see `#closeHandled`) is one its end waits for.
          const reconnecting = performance.now() < this.#reconnectsUntil
          const cut = this.#waitingLeftBehind() || typeFetch || reconnecting
          const bound = cut ? Math.min(left ?? LEFT_BEHIND_END_S, LEFT_BEHIND_END_S) : left
          this.#driverEnding = true
          const ending = (end as (o?: object) => Promise<void>).call(
            sql,
            bound === undefined ? options : { ...options, timeout: bound },
          )
          // postgres.js asks each connection to end a microtask after the call: by the next macrotask
          // the dropped ones wait, and are let go.
          if (this.#dropped.size > 0) setImmediate(() => this.#unstick())
          // Once ended, no connection opens: one postgres.js was to reopen after its backoff (for a
          // request left to it) would open after the end, its socket keeping the process alive.
          // Its connections ended, a socket still open is one postgres.js ended without closing it (a
          // server that never answers the Terminate): it would keep the process alive until the
          // system gives up on it.
          ending.then(
            () => {
              this.#ended = true
              for (const socket of this.#sockets) socket.destroy()
            },
            () => {},
          )
          return ending
        })
  }

  /**
   * Notes that `connection`'s socket closed under a query of pipeflush's (its reservation given up:
   * see `PostgresJsReservation.discard`). postgres.js 3.4.9 keeps such a query as the connection's
   * current one (its close handler rejects it without clearing it), and its `end()` waits for that
   * query to finish: never (README, item 19). `key`: the cancel key the connection has now, changed by
   * a reconnect.
   */
  dropped(connection: PostgresJsConnection, key: () => string | undefined): void {
    this.#dropped.set(connection, key)
  }

  /** `connection` is in use again (a reservation got it): whatever it held was cleared by its reconnect. */
  reused(connection: PostgresJsConnection): void {
    this.#dropped.delete(connection)
  }

  /**
   * postgres.js handled a connection's close. That connection may open again later for a request
   * that no longer waits, after the backoff postgres.js drew at this close or an earlier one of the
   * connection (up to 20 s after a storm of failures): postgres.js 3.4.9 keeps a `reserve()` request
   * in its queue while a connection opens for it, so another connection that becomes the pool's
   * meanwhile serves it, or it is rejected, and the connection goes on opening for it all the same.
   * An end asked before that reopening waits for it (README, item 27): the end is bounded until
   * postgres.js's longest backoff after this close has passed.
   */
  #closeHandled(): void {
    this.#closesHandled++
    const until = performance.now() + this.#reconnectDelayMs() + REOPENING_MARGIN_MS
    if (until > this.#reconnectsUntil) this.#reconnectsUntil = until
  }

  /**
   * Ends a connection that became ready after postgres.js's `end()` was called, with nothing to do
   * (nothing written since its startup, `writtenAtReady` bytes): postgres.js reconnected it, after its
   * backoff, for a request that was already over (a reservation rejected while its connection
   * opened), and the end, which found it connecting for that request, waits for it to end. postgres.js
   * 3.4.9 ends an ending connection only at a ReadyForQuery; this one, handed to the pool idle, gets
   * none, and the end never settled. A Sync asks the server for one: postgres.js then ends it.
   */
  #endIfIdle(driven: Duplex, meter: { readonly bytesOut: number }, writtenAtReady: number): void {
    if (meter.bytesOut !== writtenAtReady || driven.writableEnded || driven.destroyed) return
    driven.write(SYNC_MESSAGE)
  }

  /**
   * Ends the connections that closed under a query of pipeflush's and did not reconnect since (their
   * cancel key still the closed socket's, or none known): postgres.js's `terminate()` of a connection
   * without a socket only settles the end it was asked for and rejects again what it already rejected.
   */
  #unstick(): void {
    for (const [connection, key] of this.#dropped) {
      const k = key()
      const meter = k === undefined ? undefined : this.#meters?.byKey(k)
      if (meter === undefined || meter.meter.closed) connection.terminate()
    }
    this.#dropped.clear()
  }

  get database(): string | undefined {
    const database = (this.sql.options as { database?: unknown }).database
    return typeof database === 'string' ? database : undefined
  }

  /** Milliseconds postgres.js waits for a connection to open (its `connect_timeout`, default 30 s). */
  get connectTimeoutMs(): number {
    const seconds = Number(this.sql.options.connect_timeout ?? 30)
    return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : Number.POSITIVE_INFINITY
  }

  meterSockets(
    meter: (socket: Duplex, address: string, afterReady: number, admit?: Admission) => MeteredSocket,
  ): void {
    const o = this.sql.options
    const metered = new WeakMap<Socket, MeteredSocket>()
    // Each opening's end (see below), by its socket: over TLS postgres.js removes every listener of the
    // socket as it upgrades it, so the TLS socket's close ends it too (a handshake that fails).
    const openings = new WeakMap<Socket, (ready?: boolean) => void>()
    // Whether each socket's connection is fetching the array types (see `socketFactory`'s `fetchingTypes`).
    const fetching = new WeakMap<Socket, () => boolean>()
    // An opening is the client's `end()`'s to wait for from the factory's call (see `ClientEnd`).
    o.socket = this.#end.counting(
      socketFactory(
        o.socket,
        (socket, admit) => {
          // The array types a connection fetches are the client's, shared by all its connections: once
          // one connection fetched them, later ones skip the query (a round trip each), whose failure
          // postgres.js 3.4.9 leaves as an unhandled rejection (`fetchArrayTypes` is not awaited).
          if (o.fetch_types !== false && Object.keys(o.shared?.typeArrayMap ?? {}).length > 0)
            o.fetch_types = false
          const named = socket as Socket & { host?: unknown; port?: unknown }
          // postgres.js reads fetch_types as it starts the connection, within microtasks of this call.
          const typeQuery = o.fetch_types === false ? 0 : 1
          const address = o.path ? String(o.path) : `${String(named.host)}:${String(named.port)}`
          const m = meter(socket, address, typeQuery, admit)
          metered.set(socket, m)
          this.#sockets.add(socket)
          socket.once('close', () => this.#sockets.delete(socket))
          // The application's `sql.end()` waits until the connection is the pool's, or closed.
          const opened = this.#end.begin()
          // The oldest of the end's holds for a reopening (see `#awaitReopening`) is over with this
          // opening: postgres.js reopens a connection for each request it rejected so. Releasing every
          // hold with the first let the end start before the other reopenings, whose connections
          // postgres.js's end then waited for without end (over TLS, where it rejects at the handshake).
          // Only an opening begun after a close postgres.js handled since the rejection can be a reopening
          // for it: one asked before (a cold pool opening two at once, the other rejected) is not.
          const closes = this.#closesHandled
          const first = this.#afterOpening.findIndex((hold) => hold.closes < closes)
          const held = first < 0 ? [] : this.#afterOpening.splice(first, 1)
          let over = false
          // `ready`: the connection became the pool's; else it closed before.
          const opening = (ready = false) => {
            if (over) return
            over = true
            opened()
            for (const hold of held) hold.release()
            if (ready) this.#serverTakesConnections(closes)
          }
          socket.once('close', () => opening())
          openings.set(socket, opening)
          // The type fetch is the one query of the opening after the startup: written once the server is
          // first ready, over when its answer's ReadyForQuery came (the end of a chunk of data).
          let typesFetching = false
          m.meter.onReady(() => {
            if (m.afterReady === 0) return
            typesFetching = true
            this.#fetchingTypes.add(socket)
            const source = m.decrypted ?? socket
            let tail = Buffer.alloc(0)
            const answered = (chunk: Buffer) => {
              tail = Buffer.concat([tail, chunk]).subarray(-6)
              if (tail.length < 6 || tail[0] !== 0x5a || tail.readUInt32BE(1) !== 5) return
              typesFetching = false
              this.#fetchingTypes.delete(socket)
              source.removeListener('data', answered)
            }
            source.on('data', answered)
          })
          fetching.set(socket, () => typesFetching)
          // Cut during the type fetch, the opening failed: counted so, a reservation fails after a few
          // (a network that cuts every opening there, as over TLS, where no opening gets part of the
          // types) rather than waiting out its deadline.
          m.failsOpening = () => typesFetching
          socket.once('close', () => {
            if (typesFetching) this.#typeFetchCut = true
            this.#fetchingTypes.delete(socket)
          })
          // Without the type fetch, postgres.js 3.4.9 never hands a connection opened for a reservation to
          // it (its ReadyForQuery returns early): its 'drain' listener hands an idle connection to the pool.
          // Nothing else can hold the connection between its first ReadyForQuery and the next macrotask.
          // Over TLS that listener is on the TLS socket (the meter reads the messages from it). A
          // connection postgres.js ended at that ReadyForQuery (its own `target_session_attrs` check,
          // `standby` or `prefer-standby`, refused the server: it opens again at the next host) is
          // handed to no one: it would fail its first query `CONNECTION_DESTROYED`.
          m.meter.onReady(() => {
            const writtenAtReady = m.meter.bytesOut
            setImmediate(() => {
              const driven = m.decrypted ?? socket
              if (driven.writableEnded || driven.destroyed) return opening()
              driven.emit('drain')
              opening(true)
              // Its writes go out a macrotask after they are asked (postgres.js gathers them).
              if (this.#driverEnding) setImmediate(() => this.#endIfIdle(driven, m.meter, writtenAtReady))
            })
          })
          return m.meter
        },
        (refused) => {
          this.#closeHandled()
          this.#awaitReconnect()
          for (const refusal of this.#reopeningRefusals) refusal.closed()
          const over = refused === undefined ? undefined : this.#refused.get(refused)
          if (over === undefined) return
          this.#refused.delete(refused!)
          over()
        },
        (socket, tls) => {
          // Over TLS postgres.js reads fetch_types once the handshake is over, when another connection
          // may have fetched the types (and fetch_types been turned off): read it again then, just before
          // postgres.js does (this listener runs before its own).
          tls.prependOnceListener('secureConnect', () => {
            const m = metered.get(socket)
            if (m !== undefined) m.afterReady = o.fetch_types === false ? 0 : 1
          })
          const opening = openings.get(socket)
          if (opening !== undefined) tls.once('close', () => opening())
          // postgres.js took every listener off the socket, the one that forgets it too.
          tls.once('close', () => this.#sockets.delete(socket))
        },
        () => this.#refusal(),
        () => (this.#ended ? this.#endedOpening() : undefined),
        (socket) => fetching.get(socket)?.() === true,
        () => this.#end.ending && this.#reserving === 0,
      ),
    )
  }

  /**
   * `requests` of a reservation postgres.js holds after pipeflush gave it up for failed connection
   * attempts (`why`). postgres.js reconnects for a request until it gets a connection or an
   * error, at once when the server closes a connection before it is ready (no backoff: the close is
   * no error): against a server that closes every new connection, thousands of connections a second,
   * forever, and a client whose `end()` never settles. So the next openings fail at once (see
   * `socketFactory`'s `refusal`), which rejects the request an opening is for: two per stranded request
   * (postgres.js keeps a request in its queue while it connects for it, and the connection that closed
   * takes it from there once more), the oldest requests first, as postgres.js serves its queue; for at
   * most {@link REFUSING_MS}. Not with several hosts: postgres.js then takes a failed opening as one
   * host's failure and reconnects for the same request (it never sees the error), so refusing would
   * only keep it from the hosts, the request never rejected.
   */
  #strand(requests: number, why: DriverError, since: number): void {
    const o = this.sql.options
    if (!o.path && o.host.length > 1) return
    this.#refusals += 2 * requests
    this.#strandedWhy = why
    this.#refuseUntil = performance.now() + REFUSING_MS
    // Once the reservations given up in this round of checks have settled.
    setImmediate(() => this.#endSilentOpenings(since, why))
  }

  /**
   * Ends the connections begun opening since `since` that the server has not answered a byte, when
   * no reservation of pipeflush's waits any more: postgres.js opened them for requests of reservations
   * given up after their connection attempts failed for `connect_timeout` (`why`), and against a silent
   * server each would hold a slot of the pool, and the client's end, for another `connect_timeout`
   * (postgres.js's own queries fail at the timeout of the connection opened for them, and leave none).
   * Ended with an error, as postgres.js's own connect timeout does: postgres.js rejects the request it
   * opened for and does not open again for it. At most as many as the requests pipeflush left to
   * postgres.js, the oldest first: which opening is for which request cannot be told, and one beyond
   * them is the application's own (one of those may be ended instead: its query then fails as it would
   * at its own connect timeout, sooner).
   */
  #endSilentOpenings(since: number, why: DriverError): void {
    if (this.#reserving > 0 || this.#meters === undefined) return
    let left = this.#waitingLeftBehind() ? this.#leftBehind.size : 0
    for (const m of this.#meters.unclaimedOpenings(since, performance.now())) {
      if (left === 0) return
      if (m.meter.ready || m.meter.bytesIn > 0) continue
      left--
      endOpening(m.socket as Socket, Object.assign(new Error(why.message), { code: 'CONNECT_TIMEOUT' }))
    }
  }

  /**
   * Whether a request left to postgres.js may still be waiting for a reconnect (see `#leftBehind`):
   * one left within the longest backoff postgres.js waits. An older one postgres.js dropped (it hands
   * some to nobody: README item 5) and no connection waits for it; it is forgotten.
   */
  #waitingLeftBehind(): boolean {
    const now = performance.now()
    let waiting = false
    for (const [request, at] of this.#leftBehind) {
      if (now - at > LEFT_BEHIND_WAIT_MS) this.#leftBehind.delete(request)
      else waiting = true
    }
    return waiting
  }

  /**
   * Holds the client's end until an opening is over (ready or closed), for at most
   * {@link REOPENING_WAIT_MS}: postgres.js reopens a connection for `request`, rejected while its
   * connection opened (a few ms later, after its backoff), and an end asked before that opening is
   * over waits for that connection until its bound. Each opening begun after a close handled since
   * the rejection releases one such hold, the oldest. The request stays left behind (the end
   * bounded) as long as postgres.js may reconnect for it.
   */
  #awaitReopening(request: Promise<unknown>): void {
    this.#leftBehind.set(request, performance.now())
    const done = this.#end.begin()
    const timer = setTimeout(done, REOPENING_WAIT_MS)
    timer.unref()
    // Left behind until an opening is ready (over TLS, for postgres.js's longest backoff: see
    // `#serverTakesConnections`), not until the next one is over: which opening postgres.js made for
    // it cannot be told (another request's may come first), and while openings fail it may reopen
    // again after the end (over TLS, every handshake failing, it reopens for each rejected request in
    // turn), a connection its end would wait for without end: the end stays bounded.
    // Those no longer left behind (older than postgres.js's longest backoff) go: the set stays small
    // however long the server refuses.
    this.#waitingLeftBehind()
    for (const earlier of this.#reopenedFor.keys())
      if (!this.#leftBehind.has(earlier)) this.#reopenedFor.delete(earlier)
    const closes = this.#closesHandled
    // postgres.js reopens after its backoff at the failure this rejection counts (one more than now).
    const reopenBy = performance.now() + this.#reconnectDelayMs(1) + REOPENING_MARGIN_MS
    this.#reopenedFor.set(request, { closes, reopenBy })
    this.#afterOpening.push({
      closes,
      release: () => {
        clearTimeout(timer)
        done()
      },
    })
  }

  /**
   * An opening became the pool's: the server takes connections again, so postgres.js's reopenings
   * for the requests it rejected while their connection opened get theirs, and its end waits for
   * none of them: they are no longer left behind (an application's own query then runs to its end).
   * Only the requests rejected before a close that came before this opening began (`closes`, handled
   * then): an opening asked before is no reopening for them, and an end asked after it while
   * postgres.js still waits out its backoff to reopen waited for that connection without end. And
   * only once postgres.js's backoff for each has passed (`reopenBy`, later if need be): the opening
   * ready may be another request's while the reopening is still to come (after a storm of failures,
   * a backoff of up to 20 s), and an end asked then waited for it that long (README, item 26). Over
   * TLS they stay left behind (the end bounded) until postgres.js's longest backoff passed (see
   * {@link #waitingLeftBehind}): there postgres.js reopens for a request rejected at the handshake
   * after its backoff, and the opening ready first was the next read's own while the reopening was
   * still to come; an end asked then never settled.
   */
  #serverTakesConnections(closes: number): void {
    const now = performance.now()
    for (const [request, rejected] of this.#reopenedFor) {
      if (rejected.closes >= closes) continue
      this.#reopenedFor.delete(request)
      if (this.#overTls) continue
      if (now >= rejected.reopenBy) this.#leftBehind.delete(request)
      // Begun by then, the reopening is an opening the end waits for (see `meterSockets`).
      else setTimeout(() => this.#leftBehind.delete(request), rejected.reopenBy - now).unref()
    }
  }

  /**
   * Whether the client's connections may go over TLS (its `ssl` option, `prefer` included), where
   * postgres.js reopens for a request it rejected at the handshake after its backoff, later than
   * another request's opening may be ready (see {@link #serverTakesConnections}).
   */
  get #overTls(): boolean {
    const ssl = this.sql.options.ssl
    return ssl !== undefined && ssl !== null && ssl !== false && ssl !== 'disable'
  }

  /**
   * Refuses the connection postgres.js opens again for `request`, rejected with `error` when its
   * connection did not open within `connect_timeout` (a server that takes connections and never
   * answers), or when an opening the client refused was made for it after its reservation was over.
   * postgres.js 3.4.9 leaves a `reserve()` request in its queue while it connects for it, and the close
   * of a connection rejected so takes it from there and opens once more for it (as for item 20's): a
   * connection to the silent server that nobody waits for, which held a slot of the pool, and the
   * client's end, for another `connect_timeout` (postgres.js's own queries leave no such opening: its
   * end after one timed out is at once). So the first opening begun after a close postgres.js handled
   * since the rejection fails at once (see `#refusal`). The client's end waits for that opening, until
   * postgres.js handled its close: an end asked while postgres.js is about to reopen waits for that
   * connection until its bound. No reopening comes when postgres.js had already taken the request
   * from its queue: the refusal lapses once the close that follows the rejection was handled and
   * postgres.js's backoff passed (see {@link ReopeningRefusal.closed}), at most
   * {@link REOPENING_WAIT_MS} after the rejection. Which opening is made for which request cannot be
   * told: one refused for a reservation that still waits is asked again (see `reservation.ts`). Not
   * with several hosts: postgres.js's reopening then goes to the next host (see `#strand`).
   */
  #refuseReopening(request: Promise<unknown>, error: unknown): void {
    const o = this.sql.options
    if (!o.path && o.host.length > 1) {
      this.#awaitReopening(request)
      return
    }
    this.#leftBehind.set(request, performance.now())
    const done = this.#end.begin()
    let timer: NodeJS.Timeout | undefined
    const wait = (ms: number) => {
      clearTimeout(timer)
      timer = setTimeout(() => over(), ms)
    }
    const closes = this.#closesHandled
    let lapsing = false
    const over = () => {
      clearTimeout(timer)
      this.#reopeningRefusals = this.#reopeningRefusals.filter((r) => r !== refusal)
      this.#leftBehind.delete(request)
      done()
    }
    const refusal: ReopeningRefusal = {
      closes,
      error: refusedOpening(this.toDriverError(error)),
      over,
      closed: () => {
        if (lapsing || this.#closesHandled <= closes) return
        lapsing = true
        wait(Math.min(REOPENING_WAIT_MS, this.#reconnectDelayMs() + REOPENING_MARGIN_MS))
      },
    }
    wait(REOPENING_WAIT_MS)
    this.#reopeningRefusals.push(refusal)
  }

  /**
   * postgres.js handled a connection's close: it reconnects it for the oldest request of its queue, if
   * any, after its backoff. While openings are to be refused (see `#refusal`), the client's end waits
   * for that backoff, at most {@link REOPENING_WAIT_MS}, so that such a reconnect is counted, and
   * refused: ended while a connection waits to reconnect for a request, postgres.js's end waits for
   * that connection until its bound. Not otherwise: the reconnect would be a connection the end waits
   * for until it is ready or closed (with several hosts all down, postgres.js reconnects for ever).
   */
  #awaitReconnect(): void {
    const refusing =
      this.#reopeningRefusals.length > 0 || (this.#refusals > 0 && performance.now() <= this.#refuseUntil)
    if (!refusing) return
    const done = this.#end.begin()
    setTimeout(done, Math.min(REOPENING_WAIT_MS, this.#reconnectDelayMs() + REOPENING_MARGIN_MS))
  }

  /**
   * How long postgres.js may wait before it reconnects a connection that closed now: its `backoff`
   * (seconds) at the failures counted since a connection last opened (`shared.retries`). A function is
   * asked once, and its answer doubled: postgres.js's own draws from half its longest wait to all of
   * it. `more`: failures to count beyond those counted so far.
   */
  #reconnectDelayMs(more = 0): number {
    const o = this.sql.options
    const retries = (o.shared?.retries ?? 0) + more
    const seconds = typeof o.backoff === 'function' ? 2 * o.backoff(retries) : Number(o.backoff ?? 0)
    return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0
  }

  /**
   * The refusal of an opening once the client ends. postgres.js opens again for each request it holds
   * (pipeflush's reservations given up), after a backoff that grows with each failure it met, up to
   * 20 s: refused one after the other, a dozen requests held the process for a minute and more after
   * the end. Its count of failures is set back, so that the next attempt comes at once (milliseconds)
   * and the requests it holds are refused in a moment.
   */
  #endedOpening(): Error {
    const shared = (this.sql.options as { shared?: { retries?: unknown } }).shared
    if (shared !== undefined && typeof shared.retries === 'number') shared.retries = 0
    return endedOpening(this.address)
  }

  /**
   * The error an opening fails with: once the client ended; a reopening for a request whose connection
   * timed out (see `#refuseReopening`); while requests are stranded (see `#strand`); once the client
   * is ending, while no reservation of pipeflush's waits and requests of given-up ones are left to
   * postgres.js (it reopens for them, a connection nobody waits for: to a silent server, one that
   * held the process for postgres.js's connect timeout). Else undefined. The client's end waits
   * until postgres.js handled the close of an opening refused (it rejects the request the opening is
   * for then): ended while the opening's connection is connecting for a request, postgres.js's end
   * waits for that connection until its bound.
   */
  #refusal(): Error | undefined {
    if (this.#ended) return this.#endedOpening()
    let error: Error
    const reopening = this.#reopeningRefusals.find((r) => r.closes < this.#closesHandled)
    if (reopening !== undefined) {
      error = reopening.error
      reopening.over()
    } else if (this.#end.ending && this.#reserving === 0 && this.#waitingLeftBehind()) {
      error = this.#endedOpening()
      // The reopening an end's hold waits for (see `#awaitReopening`) is this one: its hold is over,
      // the refusal's own below holds the end until postgres.js handled the close.
      const closes = this.#closesHandled
      const first = this.#afterOpening.findIndex((hold) => hold.closes < closes)
      if (first >= 0) this.#afterOpening.splice(first, 1)[0]!.release()
    } else {
      if (this.#refusals === 0) return undefined
      if (performance.now() > this.#refuseUntil) {
        this.#refusals = 0
        return undefined
      }
      this.#refusals--
      error = refusedOpening(this.#strandedWhy)
    }
    const done = this.#end.begin()
    const timer = setTimeout(() => {
      this.#refused.delete(error)
      done()
    }, REOPENING_WAIT_MS)
    this.#refused.set(error, () => {
      clearTimeout(timer)
      done()
    })
    return error
  }

  admit(): (() => void) | DriverError {
    return this.#end.admit()
  }

  acquire(meters: Meters, giveUp: GiveUp, admitted?: boolean): Promise<AdapterConnection> {
    if (this.#end.ending && admitted !== true) return Promise.reject(this.#end.ended())
    this.#meters = meters
    const done = this.#end.begin()
    const watch = {
      meters,
      closesHandled: () => this.#closesHandled,
      connectTimeoutMs: this.connectTimeoutMs,
      address: this.address,
      strand: (requests: number, why: DriverError, since: number) => this.#strand(requests, why, since),
      leave: (request: Promise<unknown>) => this.#leftBehind.set(request, performance.now()),
      settled: (request: Promise<unknown>) => this.#leftBehind.delete(request),
      rejectedOpening: (request: Promise<unknown>, error: unknown) =>
        isConnectTimeout(error) ? this.#refuseReopening(request, error) : this.#awaitReopening(request),
    }
    this.#reserving++
    return reserveConnection(this.sql, watch, giveUp).then(
      (reserved) => {
        this.#reserving--
        return new PostgresJsReservation(this, reserved, done)
      },
      (error: unknown) => {
        this.#reserving--
        done()
        throw error
      },
    )
  }

  /**
   * Ends an opening whose reservation gave up before it was ready (see `RuntimeDriver`) as
   * postgres.js's own connect timeout does: it rejects the request it opened for (the given-up
   * reservation's) and opens no other for it, where a bare close made it open again for that request,
   * a connection nobody waits for, which held a slot of the pool, and the client's end, until
   * `connect_timeout` (a pooler holding the login while its server is down).
   */
  endStalledOpening(socket: Duplex): void {
    // Over TLS postgres.js listens on the TLS socket only.
    const driven = (this.#meters?.of(socket)?.decrypted ?? socket) as Socket
    const why = `the connection to ${this.address} was not ready when the flush or read it opened for gave up; it was ended`
    endOpening(driven, Object.assign(new Error(why), { code: 'CONNECT_TIMEOUT' }))
  }

  toDriverError(error: unknown): DriverError {
    // postgres.js writes to a socket it already dropped as a TypeError (`socket.write` of null).
    return toDriverError(
      error,
      POSTGRES_JS_FIELDS,
      (_, message) => error instanceof TypeError && /null \(reading 'write'\)/.test(message),
    )
  }

  /**
   * The statements the server completed answering the last simple-protocol message on the connection
   * of the cancel key `key` (see `SocketMeter.completedInQuery`).
   */
  completedInQuery(key: string | undefined): number | undefined {
    return key === undefined ? undefined : this.#meters?.byKey(key)?.meter.completedInQuery
  }

  /** Whether the socket of a cancel key ended, for the connection guard. */
  socketEnded(key: string): boolean | undefined {
    return this.#meters?.byKey(key)?.meter.closed
  }

  /** A mark of the sockets ended so far, for {@link mayHoldEndedSocket}. */
  endedMark(): number {
    return this.#meters?.endedMark ?? 0
  }

  /** `state` (a connection's cancel key object, updated in place) is a guarded connection's. */
  guarded(state: PostgresJsQuery['state']): void {
    if (state) this.#guardedStates.add(state)
  }

  /**
   * Whether a connection reserved when the sockets ended were `mark` ({@link endedMark}), on which
   * pipeflush has not written yet, may be one whose socket ended since: some socket ended since, and
   * the connection guard does not watch its connection. A first query written on such a connection
   * would throw from postgres.js's write timer (see `connection-guard.ts`), and the connection,
   * given back, would sit among the open ones with no socket.
   */
  mayHoldEndedSocket(mark: number): boolean {
    const meters = this.#meters
    if (meters === undefined || meters.endedMark === mark) return false
    const ended = meters.endedSince(mark)
    return ended === undefined || ended.some((m) => !this.#isGuardedKey(m.meter.key))
  }

  /** Whether `key` is the cancel key a guarded connection has now. */
  #isGuardedKey(key: string | undefined): boolean {
    for (const state of this.#guardedStates) if (key !== undefined && keyOf(state) === key) return true
    return false
  }
}

/** A reserved postgres.js connection. */
class PostgresJsReservation implements AdapterConnection {
  readonly #adapter: PostgresJsAdapter
  readonly #reserved: PostgresJsReserved
  #connection: PostgresJsConnection | undefined
  #onclose: ((error: unknown) => void) | undefined
  #onEnd: ((cause: DriverError) => void) | undefined
  #first: PostgresJsQuery | undefined
  /** The queries asked before the connection is known (before postgres.js writes the first one). */
  #unwritten: PostgresJsQuery[] | undefined = []
  /** Some were cancelled unwritten (see {@link destroy}). */
  #cancelled = false
  /** Tells the client's `end()` this reservation is over (see `ClientEnd`). */
  readonly #done: () => void
  /** The sockets ended when the reservation was answered (see `PostgresJsAdapter.mayHoldEndedSocket`). */
  readonly #endedMark: number
  /** The connection may have lost its socket before pipeflush wrote on it: never written on nor given back. */
  #doubtful = false

  constructor(adapter: PostgresJsAdapter, reserved: PostgresJsReserved, done: () => void) {
    this.#adapter = adapter
    this.#reserved = reserved
    this.#done = done
    this.#endedMark = adapter.endedMark()
  }

  simple(text: string, copies?: readonly Iterable<Buffer>[]): Promise<SimpleResult> {
    // Held across a macrotask before its first query (never so in a flush or a read: they write at
    // once), while a socket ended that may be this connection's: postgres.js would write on no socket.
    if (this.#first === undefined && this.#isDoubtful())
      return Promise.reject(closedConnectionError(this.#adapter.address))
    const q = this.#reserved.unsafe(text, [], { onexecute: (c) => this.#learn(c) })
    // Made as the server asks for it, a round trip later, each chunk written as made (see
    // `feedCopies`): from what the entities hold as sent (see `copyRows`), which what the application
    // does meanwhile leaves alone.
    if (copies !== undefined && copies.length > 0) feedCopies(q, copies)
    this.#first ??= q
    this.#unwritten?.push(q)
    return Promise.resolve(q).then(simpleResult, (error: unknown) => {
      // The statements completed before a server's error, as its socket's meter read them: postgres.js
      // keeps no count. Only a server's error is looked at: the sockets are not looked up for others
      // (a connection's failure), which change what the adapter knows of them.
      if (serverSqlState(error) === undefined || !Object.isExtensible(error)) throw error
      const completed = this.#adapter.completedInQuery(this.#key())
      if (completed !== undefined) (error as { [COMPLETED]?: number })[COMPLETED] = completed
      throw error
    })
  }

  /** Found by the cancel key the connection got, once its first query was written. */
  metered(meters: Meters): MeteredSocket | undefined {
    const key = this.#key()
    return key === undefined ? undefined : meters.byKey(key)
  }

  processId(): number | undefined {
    return this.#first?.state?.pid ?? undefined
  }

  watchEnd(onEnd: (cause: DriverError) => void): () => void {
    this.#onEnd = onEnd
    return () => {
      this.#onEnd = undefined
      const c = this.#connection
      if (c && c.onclose === this.#onclose) c.onclose = null
    }
  }

  release(): void {
    if (!(this.#first === undefined && this.#isDoubtful())) this.#reserved.release()
    this.#done()
  }

  /**
   * Whether the connection, on which nothing was written, may have lost its socket since it was
   * reserved. Such a connection is the pool's again if it did (postgres.js reconnects it on demand):
   * given back, it would sit among the open ones with no socket, and its next query, written on none,
   * would end the process. Not given back, a connection whose socket is fine stays reserved: only when
   * a socket of a connection the guard does not watch ended while a reservation was held with nothing
   * written, which a flush or a read never does.
   */
  #isDoubtful(): boolean {
    if (!this.#doubtful && this.#adapter.mayHoldEndedSocket(this.#endedMark)) this.#doubtful = true
    return this.#doubtful
  }

  discard(): void {
    // A connection a query went to and whose socket closed is the pool's again (it reconnects it on
    // demand). Given back, it would sit among the open ones for good: the guard rejects every query on
    // it (postgres.js never learns the socket closed), and each reservation that got it, not told its
    // connection, gave it back again. postgres.js tells a reservation its connection (`onexecute`) only
    // when the write went through at once: not when the socket refused it (as one whose peer ended does
    // a query of 1 KiB or more), nor when the guard rejected the query. A query taken so has its `state`.
    const c = this.#connection ?? guardedConnectionOf(this.#first?.state)
    if (c !== undefined) this.#adapter.dropped(c, () => this.#key())
    else if (this.#first?.state) {
      // Taken by a connection that was never guarded (its first query): not given back either.
    } else if (this.#cancelled) {
      // postgres.js still hands a cancelled query to the connection, a microtask or two after it was
      // asked, and then marks the connection full: given back once that is over, it is open again.
      setImmediate(() => {
        if (!this.#isDoubtful()) this.#reserved.release()
        this.#done()
      })
      return
    } else if (!this.#isDoubtful()) this.#reserved.release()
    this.#done()
  }

  /** The cancel key the connection has now (postgres.js updates it in place when it reconnects). */
  #key(): string | undefined {
    return keyOf(this.#first?.state)
  }

  destroy(): void {
    const c = this.#connection
    if (c !== undefined) c.terminate()
    else {
      // Nothing written yet (postgres.js writes a query a microtask after it is asked): never written.
      for (const q of this.#unwritten ?? []) {
        // A query executed meanwhile is cancelled on a connection postgres.js opens for the
        // CancelRequest, whose failure (the server unreachable: CONNECT_TIMEOUT) rejects what
        // `cancel()` returned: watched, or it is an unhandled rejection.
        const cancelled = q.cancel()
        if (cancelled instanceof Promise) cancelled.catch(() => {})
        this.#cancelled = true
      }
      this.#unwritten = undefined
    }
  }

  /**
   * Hooks the connection's close (the pool calls `onclose` once when its socket closes) and guards the
   * connection against writes after its socket ended (`connection-guard.ts`).
   */
  #learn(c: PostgresJsConnection): true {
    if (this.#connection === undefined) {
      this.#connection = c
      this.#adapter.reused(c)
      this.#onclose = (error) => this.#onEnd?.(this.#adapter.toDriverError(error))
      c.onclose = this.#onclose
      this.#adapter.guarded(this.#first?.state ?? null)
      guardConnection(
        c,
        { ended: (key) => this.#adapter.socketEnded(key) },
        this.#adapter.address,
        this.#first?.state ?? null,
      )
      this.#unwritten = undefined
    }
    return true // a falsy result would make postgres.js stop pipelining on this connection
  }
}

/** How long after a request is stranded openings may still be refused for it (see `#strand`). */
const REFUSING_MS = 1_000
/** The protocol's Sync ('S', its length 4): the server answers it with a ReadyForQuery. */
const SYNC_MESSAGE = Buffer.from([0x53, 0, 0, 0, 4])

/**
 * How long, at most, in seconds, the client's `end()` waits for its connections when pipeflush left
 * requests to postgres.js (see `#leftBehind`): then postgres.js ends every connection still open, as
 * `end({ timeout })` does.
 */
const LEFT_BEHIND_END_S = 2

/**
 * How long the client's end waits for postgres.js to reopen a connection for a request rejected while
 * its connection opened (see `#awaitReopening`): its backoff after a refused startup is a few ms.
 */
const REOPENING_WAIT_MS = 1000

/** Added to postgres.js's backoff before a refusal of a reopening lapses (see `#refuseReopening`). */
const REOPENING_MARGIN_MS = 50

/** postgres.js's longest reconnect backoff (20 s at most by its default), with a margin. */
const LEFT_BEHIND_WAIT_MS = 30_000

/** The error of an opening after the client ended. */
function endedOpening(address: string): Error {
  return Object.assign(new Error(`the client was ended: not connecting to ${address}`), {
    code: 'CONNECTION_ENDED',
  })
}

function refusedOpening(why: DriverError | undefined): Error {
  return Object.assign(
    new Error(`not connecting again: ${why?.message ?? 'connection attempts kept failing'}`),
    {
      code: 'CONNECT_TIMEOUT',
      [REFUSED]: true,
    },
  )
}

/**
 * Whether a request was rejected because its connection did not open within `connect_timeout`
 * (postgres.js's own timer, the socket factory's connect, an opening ended for a given-up reservation:
 * see `#endSilentOpenings`), or by an opening the client refused (see `#refusal`).
 */
function isConnectTimeout(error: unknown): boolean {
  const e = error as { code?: unknown } | null
  return typeof e === 'object' && e !== null && e.code === 'CONNECT_TIMEOUT'
}

/** An opening to refuse for a request rejected when its connection timed out (see `#refuseReopening`). */
interface ReopeningRefusal {
  /** The closes postgres.js had handled at the rejection: an opening begun after a later one is refused. */
  readonly closes: number
  readonly error: Error
  /** Refused, or lapsed: the end no longer waits for it. */
  over(): void
  /** postgres.js handled a close: once one since the rejection, it lapses after postgres.js's backoff. */
  closed(): void
}

/** The cancel key of a query's connection (its `state`, which postgres.js updates when it reconnects). */
function keyOf(state: PostgresJsQuery['state'] | undefined): string | undefined {
  return !state || state.pid === null || state.secret === null
    ? undefined
    : cancelKeyOf(state.pid, state.secret)
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

/** What pipeflush refuses to start once the application called `sql.end()`. */
function endedError(address: string): DriverError {
  const message = `cannot use the postgres.js client of ${address} after its end() was called`
  return { kind: 'connection', code: 'CONNECTION_ENDED', message, cause: new Error(message) }
}
