import type { Socket } from 'node:net'
import type { AdapterConnection, DriverAdapter } from './adapter.ts'
import type {
  DriverError,
  PipelinedStatement,
  Session,
  SessionCosts,
  SimpleResult,
  StatementResult,
} from './driver.ts'
import { closedError, isUnreadableStream } from './driver-errors.ts'
import { SessionLifecycle } from './session-lifecycle.ts'
import { sendCancelRequest } from './socket/cancel-request.ts'
import {
  claimOpening,
  countOf,
  type MeteredSocket,
  type Meters,
  openingRoundTrips,
  type SocketCount,
} from './socket/meters.ts'

/** The costs of a session whose socket cannot be observed. */
const NOT_OBSERVED: SessionCosts = { roundTrips: undefined, connectRoundTrips: undefined, bytes: undefined }

/**
 * A connection reserved for one flush or read, as a {@link Session}, over any adapter: its lifecycle
 * (nothing sent after its socket ended, given back to the pool unless it ended or was terminated: see
 * `session-lifecycle.ts`), its round trips from the meter on its socket, whether it was opened for
 * this reservation, and the openings it claims where the pool shares them.
 *
 * What every adapter's connection needs besides sending, written once: the adapters only send.
 */
export class RuntimeSession implements Session {
  readonly copyRoundTrips?: number
  readonly pipeline?: (
    statements: readonly PipelinedStatement[],
  ) => Promise<PromiseSettledResult<StatementResult>[]>
  readonly openings?: (deadline: number) => number | Promise<number>
  readonly #adapter: DriverAdapter
  readonly #connection: AdapterConnection
  readonly #meters: Meters
  readonly #started: number
  /** When the reservation was answered. */
  readonly #answered = performance.now()
  readonly #life: SessionLifecycle
  /** Round trips of every open socket when the reservation was answered. */
  readonly #counts: Map<MeteredSocket, SocketCount>
  #metered: MeteredSocket | undefined
  /** Whether this session counts the opening of its connection (decided once, when it is found). */
  #opened = false
  /** Stop listening to the socket and the driver (the socket outlives the session: no listener may pile up). */
  readonly #unwatch: (() => void)[] = []
  readonly #toError: (e: unknown) => DriverError
  /** Set by {@link terminate} with a cancel: settles once the cancel went and the socket was closed. */
  #cancelling: Promise<void> | undefined

  constructor(adapter: DriverAdapter, connection: AdapterConnection, meters: Meters, started: number) {
    this.#adapter = adapter
    this.#connection = connection
    this.#meters = meters
    this.#started = started
    this.#toError = (e) => adapter.toDriverError(e)
    this.#life = new SessionLifecycle((broken) => {
      // Its backend being cancelled: given back once the cancel went and its socket closed (see
      // `terminate`), its listeners kept until then, so that the close is not one the driver reports
      // to nobody.
      if (this.#cancelling !== undefined) void this.#cancelling.then(() => this.#giveBack(broken))
      else this.#giveBack(broken)
    })
    this.#unwatch.push(connection.watchEnd((cause) => this.#life.end(cause)))
    if (adapter.copyRoundTrips !== undefined) this.copyRoundTrips = adapter.copyRoundTrips
    const pipeline = connection.pipeline
    if (pipeline !== undefined) this.pipeline = (statements) => this.#pipeline(pipeline, statements)
    if (adapter.sharesOpenings) this.openings = (deadline) => this.#claimOpenings(deadline)
    // Only the session's own socket's counts are ever read: when it is known now (a connection that
    // answered before, the usual reservation), its counts alone, not every open socket's.
    const own = this.#identify()
    this.#counts = own === undefined ? meters.counts() : new Map([[own, countOf(own)]])
  }

  /** Gives the connection back to the pool: released, or discarded when `broken`. */
  #giveBack(broken: boolean): void {
    for (const stop of this.#unwatch.splice(0)) stop()
    const connection = this.#connection
    if (!broken) {
      connection.release()
      return
    }
    const cause = this.#life.cause
    // A stream the driver could not read stays open under it: closed, never to be read again, the
    // pool opens another connection.
    const m = isUnreadableStream(cause) ? this.#identify() : undefined
    if (m !== undefined && !m.meter.closed) m.socket.destroy()
    connection.discard(cause ?? closedError(this.#adapter.address, 'terminated'))
  }

  onEnd(listener: (cause: DriverError) => void): () => void {
    return this.#life.onEnd(listener)
  }

  get opened(): boolean {
    return this.#identify() !== undefined && this.#opened
  }

  isEnded(): boolean {
    this.#identify()
    return this.#life.cause !== undefined
  }

  simple(text: string, copies?: readonly Iterable<Buffer>[]): Promise<SimpleResult> {
    if (this.isEnded() || this.#life.terminated) return Promise.reject(this.#gone())
    const sent =
      copies === undefined || copies.length === 0
        ? this.#connection.simple(text)
        : this.#connection.simple(text, copies)
    // Where the socket is found by the query's cancel key, it is known once the query was written
    // (nothing to wait for once it is known: the usual send, on a connection that answered before).
    if (this.#metered === undefined) setImmediate(() => this.#identify())
    // Identified again when it answers, so that an answer after the socket ended is refused (`track`).
    const answer = sent.then((result) => {
      this.#identify()
      return result
    })
    return this.#life.track(answer, this.#toError)
  }

  roundTrips(): number | undefined {
    const m = this.#identify()
    if (m === undefined) return undefined
    const base = this.#opened ? 0 : (this.#counts.get(m)?.roundTrips ?? m.meter.roundTrips)
    return m.meter.roundTrips - base
  }

  connectRoundTrips(): number | undefined {
    const m = this.#identify()
    if (m === undefined) return undefined
    return this.#opened ? (this.#counts.get(m)?.roundTrips ?? 0) : 0
  }

  costs(): SessionCosts {
    const m = this.#identify()
    if (m === undefined) return NOT_OBSERVED
    const base = this.#opened ? undefined : this.#counts.get(m)
    return {
      roundTrips: m.meter.roundTrips - (this.#opened ? 0 : (base?.roundTrips ?? m.meter.roundTrips)),
      connectRoundTrips: this.#opened ? (this.#counts.get(m)?.roundTrips ?? 0) : 0,
      bytes: {
        sent: m.meter.bytesOut - (base?.bytesOut ?? 0),
        received: m.meter.bytesIn - (base?.bytesIn ?? 0),
      },
    }
  }

  bytes(): { readonly sent: number; readonly received: number } | undefined {
    const m = this.#identify()
    if (m === undefined) return undefined
    const base = this.#opened ? undefined : this.#counts.get(m)
    return {
      sent: m.meter.bytesOut - (base?.bytesOut ?? 0),
      received: m.meter.bytesIn - (base?.bytesIn ?? 0),
    }
  }

  terminate(options?: { readonly cancel?: boolean }): void {
    if (this.#life.terminated) return
    const m = this.#identify()
    const cancelled = m !== undefined && options?.cancel === true ? cancelBackend(m) : undefined
    if (cancelled !== undefined) {
      // Closed once the cancel was passed on: a pooler in between forwards it only to a client still
      // connected. The session is over now; given back meanwhile, the pool gets it once it closed.
      // Until then the driver reads nothing more from it (the cancelled statement's error included):
      // to the driver the connection ends as it would have at once, only later.
      const socket = m!
      socket.socket.pause()
      this.#cancelling = cancelled.then(() => {
        if (!socket.meter.closed) socket.socket.destroy()
      })
    } else if (m !== undefined) m.socket.destroy()
    else this.#connection.destroy()
    this.#life.terminate(closedError(this.#adapter.address, 'terminated by pipeflush'))
  }

  release(): void {
    this.#life.release()
  }

  #pipeline(
    pipeline: NonNullable<AdapterConnection['pipeline']>,
    statements: readonly PipelinedStatement[],
  ): Promise<PromiseSettledResult<StatementResult>[]> {
    if (this.#life.unusable) {
      const reason = this.#gone()
      return Promise.resolve(statements.map(() => ({ status: 'rejected', reason })))
    }
    return this.#life.track(pipeline.call(this.#connection, statements), this.#toError).then((results) => {
      // A statement answered with an error that ends the session (a FATAL such as 57P01) ends the
      // connection, although the pipeline settled: it must not go back to the pool, whose next user
      // would find it dead.
      for (const r of results) {
        if (r.status !== 'rejected') continue
        const e = this.#toError(r.reason)
        if (e.kind === 'connection') {
          this.#life.end(e)
          break
        }
      }
      return results
    })
  }

  /**
   * The pool opens a connection for a reservation that finds none idle, but may hand the reservation
   * whichever connection is free first: often one a finished flush gave back, while the new one is
   * still opening. The openings begun while this reservation waited that no session claimed are
   * claimed here and counted once each is over.
   */
  #claimOpenings(deadline: number): number | Promise<number> {
    const mine = this.#identify()
    const found = this.#meters.unclaimedOpenings(this.#started, this.#answered).filter((m) => m !== mine)
    if (found.length === 0) return 0 // the usual case: nothing to wait for
    for (const m of found) m.openingClaimed = true
    return Promise.all(found.map((m) => openingRoundTrips(m, deadline))).then((trips) =>
      trips.reduce((sum, n) => sum + n, 0),
    )
  }

  /** The metered socket of this connection, once known; its end ends the session. */
  #identify(): MeteredSocket | undefined {
    if (this.#metered) return this.#metered
    const m = this.#connection.metered(this.#meters)
    if (m === undefined) return undefined
    this.#metered = m
    this.#opened = claimOpening(m, this.#started)
    this.#unwatch.push(
      m.meter.onClose(() => {
        const e = m.meter.closeError
        this.#life.end(closedError(this.#adapter.address, e ? e.message : 'the socket closed', e))
      }),
    )
    return m
  }

  #gone(): DriverError {
    return this.#life.cause ?? closedError(this.#adapter.address, 'terminated')
  }
}

/**
 * Asks the server to cancel what the backend of `m` runs (see `sendCancelRequest`), when its cancel
 * key and its TCP peer are known (a unix socket's path is not: none asked there): settles once the
 * cancel was passed on; undefined when none was asked.
 */
function cancelBackend(m: MeteredSocket): Promise<void> | undefined {
  const key = m.meter.key
  const socket = m.socket as Partial<Socket>
  if (key === undefined || socket.remoteAddress === undefined || socket.remotePort === undefined)
    return undefined
  return sendCancelRequest(socket.remoteAddress, socket.remotePort, key)
}
