import type { GiveUp } from '../adapter.ts'
import type { DriverError } from '../driver.ts'
import type { Meters } from '../socket/meters.ts'
import type { PostgresJsReserved, PostgresJsSql } from './client-types.ts'
import { everyPoll } from './reservation-poll.ts'
import { EVERY_HOST } from './socket-factory.ts'

/** What the reservation reads of the client's connections. */
export interface ReservationWatch {
  readonly meters: Meters
  /** Sockets whose close postgres.js handled so far (a macrotask after the close: see `socket-factory.ts`). */
  closesHandled(): number
  /** postgres.js's `connect_timeout`, in ms (Infinity when none). */
  readonly connectTimeoutMs: number
  readonly address: string
  /**
   * `requests` of a reservation given up after its connection attempts failed (`why`), which
   * postgres.js still holds: it reconnects for them until they settle (forever, when the server
   * closes each connection as it opens), so the client refuses the next openings, which rejects them,
   * and ends the openings begun since the reservation asked (`since`) that the server has not
   * answered, if no reservation waits any more (see the adapter's `#strand`).
   */
  strand(requests: number, why: DriverError, since: number): void
  /**
   * `request`, asked of postgres.js for a reservation that is over (served by another request, failed
   * or given up), is left to postgres.js until it settles: the client's end is bounded while it is
   * (see the adapter's `#leftBehind`).
   */
  leave(request: Promise<unknown>): void
  /** `request` settled (left behind or not). */
  settled(request: Promise<unknown>): void
  /**
   * `request` was rejected with `error` while its connection opened: postgres.js opens once more for
   * it (see {@link reserveConnection}); the client's end waits for that opening, briefly, and is
   * bounded until it is over. One that timed out (`connect_timeout`, a silent server) is not opened
   * again (see the adapter's `#refuseReopening`).
   */
  rejectedOpening(request: Promise<unknown>, error: unknown): void
}

/**
 * `sql.reserve()`, asked again where postgres.js drops the request, until the caller gives up
 * (`giveUp`).
 *
 * postgres.js can drop a waiting reservation: when the connection it waits for closes, the pool
 * reconnects it for that request, and hands the new connection to nobody (its ReadyForQuery returns
 * early for a reservation). So the reservation is asked again when postgres.js handled a connection's
 * close and one became ready since the last ask, and every second while connection attempts fail. The
 * first answer wins; later ones are released at once. It fails when attempts fail for longer than
 * `connect_timeout` (postgres.js itself reconnects forever while a reservation waits, when the server
 * closes each new connection before it is ready); the requests it leaves to postgres.js then are
 * stranded (`watch.strand`).
 */
export function reserveConnection(
  sql: PostgresJsSql,
  watch: ReservationWatch,
  giveUp: GiveUp,
): Promise<PostgresJsReserved> {
  const { meters } = watch
  const started = performance.now()
  const failuresBefore = meters.failures
  return new Promise((resolve, reject) => {
    let leftOvers = 0
    let refusedAgain = 0
    let done = false
    let lastAsk = started
    let openedAtAsk = meters.opened
    let closesAtAsk = watch.closesHandled()
    /** The requests asked of postgres.js that have not settled. */
    const pending = new Set<Promise<unknown>>()
    const finish = (settle: () => void): boolean => {
      if (done) return false
      done = true
      stopPolling()
      stopWatching()
      for (const request of pending) watch.leave(request)
      settle()
      return true
    }
    /** Gives up after connection attempts failed for `connect_timeout`: postgres.js's requests left are stranded. */
    const failed = (why: DriverError) => {
      if (pending.size > 0) watch.strand(pending.size, why, started)
    }
    // Given up by the caller: what postgres.js still holds for it is served once a connection opens.
    const abandon = () => finish(() => reject(new Error('the reservation was given up')))
    const ask = () => {
      lastAsk = performance.now()
      openedAtAsk = meters.opened
      closesAtAsk = watch.closesHandled()
      const request: Promise<unknown> = sql.reserve().then(
        (reserved) => {
          pending.delete(request)
          watch.settled(request)
          if (!finish(() => resolve(reserved))) reserved.release()
        },
        (error: unknown) => {
          pending.delete(request)
          watch.settled(request)
          // A session's end, kept by postgres.js for the connection's next startup: ask again.
          if (isLeftOverEnd(error) && leftOvers++ < MAX_LEFT_OVERS) return ask()
          // An opening refused for the requests stranded before this reservation (see `strand`),
          // taken by this one's: ask again (the refusals are few and end within a second).
          if (isRefusedOpening(error) && !done && refusedAgain++ < MAX_REFUSED_AGAIN) return ask()
          // Rejected while its connection opened (a wrong password, a database that does not exist),
          // the request stays in postgres.js's queue: the connection's close takes it from there and
          // opens again for it, and an end asked meanwhile would wait for that connection forever.
          watch.rejectedOpening(request, error)
          finish(() => reject(error))
        },
      )
      pending.add(request)
    }
    /** Fails the reservation when the attempts failed so far say so (see `FAILED_OPENINGS`); whether it did. */
    const failedAttempts = (now: number): boolean => {
      if (done || meters.failures === failuresBefore) return false
      // An attempt found no host of a multi-host URL to connect to: postgres.js would try them again
      // for ever, where with one host it fails the request.
      const everyHost = everyHostFailed(watch, started)
      if (everyHost !== undefined) {
        if (finish(() => reject(everyHost))) failed(everyHost)
        return true
      }
      if (now - started < watch.connectTimeoutMs && meters.failuresBegunSince(started) < FAILED_OPENINGS)
        return false
      const why = cannotConnect(watch, meters.failuresBegunSince(started))
      if (finish(() => reject(why))) failed(why)
      return true
    }
    const stopPolling = everyPoll(() => {
      const now = performance.now()
      // postgres.js handled a close, and a connection became ready since: it may have been reopened
      // for this request.
      const reopened = watch.closesHandled() > closesAtAsk && meters.opened > openedAtAsk
      if (reopened && now - lastAsk >= 100) return ask()
      if (meters.failures === failuresBefore || failedAttempts(now)) return
      if (now - lastAsk >= 1000) ask()
    })
    // Looked at as each attempt fails too, a microtask after its close (postgres.js reconnects a timer
    // later): looked at by the poll alone, a server closing every new connection met dozens of
    // attempts in the 100 ms between two polls.
    const stopWatching = meters.onFailure(() => queueMicrotask(() => failedAttempts(performance.now())))
    giveUp.listen(abandon)
    ask()
  })
}

/**
 * SQLSTATEs with which a server ends a session it had accepted (shutdown, crash of another backend,
 * idle timeouts): never an answer to a connection's startup, which a server that cannot take it ends
 * with 57P03, 53300, 28xxx or 3D000.
 */
const SESSION_ENDS = new Set(['57P01', '57P02', '57P05', '25P03'])

/**
 * Connection attempts begun since a reservation was asked and failed, after which it fails, before
 * `connect_timeout` (an attempt begun before, held by a silent network and dropped as it heals, is no
 * sign that the server refuses connections now): postgres.js reconnects at once when a connection closes before it is ready (a
 * server that closes each new connection: a proxy or load balancer with no backend), and would keep at
 * it for the whole `connect_timeout` (30 s by default, `flushTimeoutMs`'s default too: every flush
 * timed out waiting). node-postgres fails at the first such close; a few let one cut opening (the
 * network's, or a server's restart) be followed by one that succeeds.
 */
const FAILED_OPENINGS = 3

/** Asks again after at most this many refused openings (see `isRefusedOpening`). */
const MAX_REFUSED_AGAIN = 64

/**
 * Marks the error of an opening the client refused while requests of given-up reservations are
 * stranded (see the adapter's `#strand`): a later reservation's request refused so is asked again.
 */
export const REFUSED: unique symbol = Symbol('pipeflush.refusedOpening')

/** Whether `error` is an opening refused for stranded requests (see {@link REFUSED}). */
function isRefusedOpening(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { [REFUSED]?: unknown })[REFUSED] === true
}

/** Asks again after at most this many left-over ends (each is one connection's leftover). */
const MAX_LEFT_OVERS = 3

/**
 * Whether a reservation was refused with the FATAL that ended an earlier session of the connection.
 * postgres.js 3.4.9 keeps a FATAL ErrorResponse that arrives during a query (the server shutting
 * down, or a backend ending when its postmaster died) until the next ReadyForQuery: the socket closes
 * first, so that is the ReadyForQuery of the connection's next startup, and the request it connects
 * for (this reservation) is rejected with the old session's error, the new connection being fine.
 */
function isLeftOverEnd(error: unknown): boolean {
  const e = error as { severity?: unknown; code?: unknown } | null
  return typeof e === 'object' && e !== null && e.severity === 'FATAL' && SESSION_ENDS.has(String(e.code))
}

/**
 * The failure of the last connection attempt since `since`, when it tried every host of a multi-host URL
 * and connected to none (see `socket-factory.ts`), as the error of a request postgres.js failed.
 */
function everyHostFailed(watch: ReservationWatch, since: number): DriverError | undefined {
  const last = watch.meters.lastFailure
  const error = last?.error as (Error & { code?: unknown; [EVERY_HOST]?: true }) | undefined
  if (last === undefined || last.at < since || error?.[EVERY_HOST] !== true) return undefined
  const code = typeof error.code === 'string' ? error.code : undefined
  return { kind: 'connection', ...(code === undefined ? {} : { code }), message: error.message, cause: error }
}

/**
 * Connection attempts kept failing for longer than `connect_timeout`, or `attempts` of them failed
 * (at least {@link FAILED_OPENINGS}): the last attempt's own error is the cause, so that what failed
 * is classified by its code (a handshake the network cut, ECONNRESET, is no TLS setting to fix,
 * whatever its message says of TLS).
 */
export function cannotConnect(
  watch: Pick<ReservationWatch, 'meters' | 'address' | 'connectTimeoutMs'>,
  attempts = 0,
): DriverError {
  const last = watch.meters.lastFailure
  const where = last?.address ?? watch.address
  const reason = last?.reason ?? 'no answer'
  // The server's refusal (28P01: a password) tells what to fix (LOGIN_FAILED), not the network.
  const sqlState = last?.sqlState === undefined ? {} : { sqlState: last.sqlState }
  if (attempts >= FAILED_OPENINGS) {
    const message = `could not open a connection to ${where}: ${attempts} attempts failed: ${reason}`
    return { kind: 'connection', message, ...sqlState, cause: last?.error ?? new Error(message) }
  }
  const message = `could not open a connection to ${where} within connect_timeout (${watch.connectTimeoutMs / 1000} s): ${reason}`
  return {
    kind: 'connection',
    code: 'CONNECT_TIMEOUT',
    message,
    ...sqlState,
    cause: last?.error ?? new Error(message),
  }
}
