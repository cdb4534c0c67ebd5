import { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { type Admission, meterSocket, type SocketMeter } from './socket-meter.ts'
import { watchTlsUpgrade } from './tls-upgrade.ts'

/** A metered socket of a client. */
export interface MeteredSocket {
  readonly socket: Duplex
  readonly meter: SocketMeter
  /** The meter saw the connection from its first byte (else it was put on an open connection). */
  readonly fromStart: boolean
  /**
   * A session counted the round trips of opening the connection (see {@link claimOpening}): a
   * connection opened while several reservations waited can serve more than one of them in turn.
   */
  openingClaimed: boolean
  /**
   * Round trips the driver makes on the connection after the server is first ready and before the
   * connection serves anyone (postgres.js: its array type query, on a client's first connections).
   * Set again if the driver decides later (postgres.js over TLS, once the handshake is over).
   */
  afterReady: number
  /** Round trips when the server was first ready for queries. */
  readyTrips: number | undefined
  /**
   * The TLS socket the driver put over `socket`, once it did: the meter reads the messages from it,
   * and it finds this metered socket as `socket` does.
   */
  decrypted: Duplex | undefined
  /**
   * Whether a close now is a failed connection attempt although the server was ready: the driver's
   * own query of the opening (see {@link afterReady}) was still unanswered, so the connection never
   * served anyone. Set by the adapter whose driver makes such a query.
   */
  failsOpening?: () => boolean
}

/**
 * Whether a session reserved at `started` counts the opening of `metered`'s connection as its own:
 * the connection was metered from its first byte, opened after the reservation began, and no earlier
 * session claimed it (a connection opened while several reservations waited serves the first, then
 * maybe another: only the first counts the opening; the next counts from when it got the connection).
 * Claims it when so.
 */
export function claimOpening(metered: MeteredSocket, started: number): boolean {
  if (!metered.fromStart || metered.openingClaimed || metered.meter.createdAt < started) return false
  metered.openingClaimed = true
  return true
}

/**
 * The round trips of opening `metered`'s connection, once the opening is over: the server ready for
 * queries and the driver's own round trips after that ({@link MeteredSocket.afterReady}) sent. Those
 * so far when the socket closes first, when encryption hides the rest (TLS), or at `deadline`. Never
 * rejects.
 *
 * A session that opened its connection counts the opening's round trips as its own.
 */
export function openingRoundTrips(metered: MeteredSocket, deadline: number): Promise<number> {
  const meter = metered.meter
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined
    let stops: (() => void)[] = []
    let settled = false
    const done = (trips: number) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      for (const stop of stops) stop()
      stops = []
      resolve(trips)
    }
    const ms = deadline - performance.now()
    if (Number.isFinite(ms)) timer = setTimeout(() => done(meter.roundTrips), Math.max(0, ms))
    stops.push(meter.onClose(() => done(meter.roundTrips)))
    meter.onOpeningSeen(() => {
      if (!meter.ready) return done(meter.roundTrips) // encrypted: the rest cannot be seen
      const target = (metered.readyTrips ?? meter.roundTrips) + metered.afterReady
      stops.push(meter.onRoundTrips(target, () => done(target)))
    })
  })
}

/** What a socket carried so far. */
export interface SocketCount {
  readonly roundTrips: number
  readonly bytesOut: number
  readonly bytesIn: number
}

/** What `m` carried so far. */
export function countOf(m: MeteredSocket): SocketCount {
  return { roundTrips: m.meter.roundTrips, bytesOut: m.meter.bytesOut, bytesIn: m.meter.bytesIn }
}

/** How many ended sockets {@link Meters.byKey} still finds. */
const RECENTLY_ENDED = 256

/** Failed connection attempts whose start the meters remember (see `failuresBegunSince`). */
const RECENT_FAILURES = 64

/** Why the last connection attempt failed, and where. */
export interface ConnectFailure {
  readonly at: number
  readonly address: string
  readonly reason: string
  /** The server has no TLS (it answered `N` to the SSLRequest) and the client required it. */
  readonly tlsRefused: boolean
  /** The socket's first error, if it had one. */
  readonly error: Error | undefined
  /** The SQLSTATE of the error the server answered during the startup, if it answered one. */
  readonly sqlState: string | undefined
}

/**
 * The metered sockets of one client: the ones open, looked up by socket or by cancel key, and the
 * connection attempts that failed (a socket that closed before the server was ready for queries).
 *
 * An adapter knows a connection by its socket or by its cancel key: either finds its meter.
 */
export class Meters {
  readonly #open = new Set<MeteredSocket>()
  /** The last sockets that ended after their connection got its cancel key, oldest first. */
  readonly #endedSockets: MeteredSocket[] = []
  readonly #bySocket = new WeakMap<Duplex, MeteredSocket>()
  #failures = 0
  /** When each of the last failed attempts began (`performance.now()`), oldest first. */
  readonly #failedBegan: number[] = []
  #opened = 0
  #ended = 0
  /** Sockets that ended after their connection got its cancel key, since the first (see {@link endedSince}). */
  #endedWithKey = 0
  #lastFailure: ConnectFailure | undefined
  /** Told of each failed attempt as it is counted (see {@link onFailure}). */
  readonly #failureListeners = new Set<() => void>()
  /** Whether the meters count the statements each simple message's answer completes (see `meterSocket`). */
  readonly #countCompleted: boolean

  constructor(options: { readonly countCompleted?: boolean } = {}) {
    this.#countCompleted = options.countCompleted === true
  }

  /**
   * Meters `socket` (once) and returns it; `fromStart` when no byte went through it yet; `afterReady`:
   * see {@link MeteredSocket.afterReady}; `admit` judges the connection at the end of its startup (a
   * refused one is a failed attempt, its reason the refusal's).
   */
  add(socket: Duplex, address: string, fromStart = true, afterReady = 0, admit?: Admission): MeteredSocket {
    const known = this.#bySocket.get(socket)
    if (known) return known
    const began = performance.now()
    const metered: MeteredSocket = {
      socket,
      meter: meterSocket(socket, admit, this.#countCompleted),
      fromStart,
      openingClaimed: false,
      afterReady,
      readyTrips: undefined,
      decrypted: undefined,
    }
    this.#bySocket.set(socket, metered)
    if (socket instanceof Socket)
      watchTlsUpgrade(socket, (tls) => {
        metered.decrypted = tls
        this.#bySocket.set(tls, metered)
        metered.meter.readDecrypted(tls)
      })
    this.#open.add(metered)
    metered.meter.onReady(() => {
      this.#opened++
      metered.readyTrips = metered.meter.roundTrips
    })
    metered.meter.onClose(() => {
      this.#open.delete(metered)
      if (metered.meter.key !== undefined) {
        this.#endedSockets.push(metered)
        this.#endedWithKey++
        if (this.#endedSockets.length > RECENTLY_ENDED) this.#endedSockets.shift()
      }
      if (metered.meter.ready) this.#ended++
      if (!metered.meter.ready || metered.failsOpening?.() === true) {
        this.#failures++
        this.#failedBegan.push(began)
        if (this.#failedBegan.length > RECENT_FAILURES) this.#failedBegan.shift()
        const error = metered.meter.closeError
        const tlsRefused = metered.meter.tlsRefused
        // The server's own refusal (a password, a database), when it answered one in the clear.
        const refused = metered.meter.startupError
        this.#lastFailure = {
          at: performance.now(),
          address,
          reason: tlsRefused
            ? 'the server does not support SSL connections (it answered N to the SSLRequest)'
            : error
              ? error.message
              : (refused?.message ??
                (metered.meter.ready
                  ? "the connection closed during the driver's own query of its opening (postgres.js: the array type fetch)"
                  : 'the connection closed before the server was ready')),
          tlsRefused,
          error,
          sqlState: refused?.sqlState || undefined,
        }
        for (const listener of this.#failureListeners) listener()
      }
    })
    return metered
  }

  /** The metered socket, if `socket` is metered. */
  of(socket: Duplex): MeteredSocket | undefined {
    return this.#bySocket.get(socket)
  }

  /**
   * The metered socket whose connection has the cancel key `key` (`pid:secret`): an open one, else
   * one of the last {@link RECENTLY_ENDED} that ended (a connection is identified by its key after
   * its first query was written, and its socket may have ended by then: the caller must learn that).
   */
  byKey(key: string): MeteredSocket | undefined {
    for (const m of this.#open) if (this.#isLive(m) && m.meter.key === key) return m
    for (let i = this.#endedSockets.length - 1; i >= 0; i--) {
      const m = this.#endedSockets[i]!
      if (m.meter.key === key) return m
    }
    return undefined
  }

  /**
   * The open sockets metered from their first byte, created from `from` to `to` (`performance.now()`
   * times), whose opening no session claimed.
   */
  unclaimedOpenings(from: number, to: number): MeteredSocket[] {
    const out: MeteredSocket[] = []
    for (const m of this.#open) {
      if (!this.#isLive(m)) continue
      const at = m.meter.createdAt
      if (m.fromStart && !m.openingClaimed && at >= from && at <= to) out.push(m)
    }
    return out
  }

  /** Round trips and bytes so far of every open socket. */
  counts(): Map<MeteredSocket, SocketCount> {
    const out = new Map<MeteredSocket, SocketCount>()
    for (const m of this.#open) if (this.#isLive(m)) out.set(m, countOf(m))
    return out
  }

  /**
   * Whether `m`, one of the open sockets, is still open. A driver that hands a socket to TLS may remove
   * every listener from it, the meter's close listener included: such sockets are dropped here once
   * destroyed (while the caller iterates the set: a Set's iteration allows it). A plain loop and this
   * check rather than a generator: every reservation looks its socket up here.
   */
  #isLive(m: MeteredSocket): boolean {
    if (!m.socket.destroyed) return true
    this.#open.delete(m)
    return false
  }

  /** Connections that became ready for queries so far. */
  get opened(): number {
    return this.#opened
  }

  /**
   * A mark of the sockets ended so far after their connection got its cancel key: give it to
   * {@link endedSince} later.
   */
  get endedMark(): number {
    return this.#endedWithKey
  }

  /**
   * The sockets (whose connection had its cancel key) that ended since `mark` ({@link endedMark}), in
   * the order they ended; `undefined` when more ended than the meters remember.
   *
   * @example
   * const mark = meters.endedMark
   * // ... a macrotask or more later:
   * const ended = meters.endedSince(mark) // [] when none ended
   */
  endedSince(mark: number): readonly MeteredSocket[] | undefined {
    const count = this.#endedWithKey - mark
    if (count === 0) return []
    return count > this.#endedSockets.length ? undefined : this.#endedSockets.slice(-count)
  }

  /** Connections that ended after they had been ready, so far. */
  get ended(): number {
    return this.#ended
  }

  /** Connection attempts that failed so far. */
  get failures(): number {
    return this.#failures
  }

  /**
   * Connection attempts begun at `since` (`performance.now()`) or later that failed so far, counted
   * among the last {@link RECENT_FAILURES} failures: an attempt begun before (an opening a silent
   * network held, dropped as it heals) is no failure of what began at `since`.
   *
   * @example
   * const asked = performance.now()
   * // ... later:
   * if (meters.failuresBegunSince(asked) >= 3) giveUp()
   */
  failuresBegunSince(since: number): number {
    let n = 0
    for (let i = this.#failedBegan.length - 1; i >= 0; i--) if (this.#failedBegan[i]! >= since) n++
    return n
  }

  get lastFailure(): ConnectFailure | undefined {
    return this.#lastFailure
  }

  /**
   * Calls `listener` each time a connection attempt fails, once it is counted (as the socket closes),
   * until the returned function is called: a reservation looks at the failures as they come, before
   * the driver opens again (postgres.js reconnects at once after a close before the server was ready).
   *
   * @example
   * const stop = meters.onFailure(() => { if (meters.failuresBegunSince(asked) >= 3) giveUp() })
   */
  onFailure(listener: () => void): () => void {
    // Wrapped: the same function given twice is told twice, and each call's stop removes its own.
    const entry = () => listener()
    this.#failureListeners.add(entry)
    return () => {
      this.#failureListeners.delete(entry)
    }
  }
}
