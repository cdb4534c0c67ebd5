import type { Duplex } from 'node:stream'
import type { DriverError, PipelinedStatement, SimpleResult, StatementResult } from './driver.ts'
import type { MeteredSocket, Meters } from './socket/meters.ts'
import type { Admission } from './socket/socket-meter.ts'

/**
 * What a driver's adapter does: send on the client's connections, and tell what its pool and sockets
 * do. Everything every driver shares (metering round trips, the reservation's deadline, claiming
 * connection openings, detecting a pooler, the session's lifecycle) is done once above it, by
 * `RuntimeDriver` (`runtime-driver.ts`), which every adapter goes through. One adapter per driver:
 * `pg/pg-adapter.ts`, `postgres-js/postgres-js-adapter.ts`.
 */
export interface DriverAdapter {
  readonly name: 'postgres.js' | 'pg'
  /** Where the database is, for messages: `host:port` (or the socket path), never credentials. */
  readonly address: string
  /** The database's name, where the client's options say it. */
  readonly database?: string | undefined
  /** Whether its connections pipeline extended-protocol statements ({@link AdapterConnection.pipeline}). */
  readonly pipelines: boolean
  /** Whether {@link AdapterConnection.simple} takes COPY data. */
  readonly copies: boolean
  /** Round trips each COPY of a simple message adds (its data goes when the server asks for it). */
  readonly copyRoundTrips?: number
  /**
   * Whether a server's error answering a simple message carries the count of its statements the
   * server completed (`COMPLETED`), counted by the adapter; else the socket meters count them (see
   * `SocketMeter.completedInQuery`).
   */
  readonly countsCompleted: boolean
  /**
   * Whether the pool may hand a waiting request a connection it began to open for another one
   * (postgres.js): the opening is then claimed by a session that waited (see `Session.openings`).
   */
  readonly sharesOpenings: boolean
  /**
   * Puts `meter` on every socket the client opens from now on, before the driver writes to it (or on
   * connect, for a socket the driver connects itself). `afterReady`: round trips the driver makes on
   * the connection after the server is first ready and before it serves anyone; `admit` judges the
   * connection at the end of its startup (see `Admission`).
   */
  meterSockets(
    meter: (socket: Duplex, address: string, afterReady: number, admit?: Admission) => MeteredSocket,
  ): void
  /**
   * A connection of the pool, once one is free: no deadline of its own (the caller's, who gives up
   * through `giveUp` when it passes). Rejects when none can be opened (after the driver's connect
   * timeout at the latest), or once the application ended the client, unless the work was
   * `admitted` before (see {@link admit}). A connection answered after the caller gave up is given
   * back by the caller.
   */
  acquire(meters: Meters, giveUp: GiveUp, admitted?: boolean): Promise<AdapterConnection>
  /** See `Driver.admit`. */
  admit(): (() => void) | DriverError
  /**
   * The reservation (its `giveUp`) whose {@link acquire} made the client open `socket`, where the
   * adapter can tell (node-postgres opens within the call); absent where it cannot (postgres.js opens
   * a timer later, for whichever request comes first).
   */
  openedFor?(socket: Duplex): GiveUp | undefined
  /**
   * The sockets the client began to connect for the reservation `giveUp` whose TCP connection is not
   * up yet (no meter is on them: see {@link meterSockets}), where the adapter can tell; ended with the
   * reservation's other openings when it gives up (see `RuntimeDriver`).
   */
  unconnectedFor?(giveUp: GiveUp): readonly Duplex[]
  /**
   * Ends `socket`, an opening not ready whose reservation gave up (see `RuntimeDriver`), where the
   * driver must be told more than its close; absent: the socket is destroyed (node-postgres fails the
   * connection it was opening, and opens no other for it).
   */
  endStalledOpening?(socket: Duplex): void
  /** The driver's error in pipeflush's shape. */
  toDriverError(error: unknown): DriverError
}

/**
 * The caller of {@link DriverAdapter.acquire} gave up waiting (its deadline passed): told once to the
 * one listener. An `AbortController` does this job too, at about 3 µs per reservation (its signal is
 * an event target): a cost every flush and read batch would pay to be told something that almost never
 * happens.
 */
export class GiveUp {
  #listener: (() => void) | undefined
  #given = false

  /** Calls `listener` when the caller gives up (at once if it has): one listener, the last one set. */
  listen(listener: () => void): void {
    this.#listener = listener
    if (this.#given) listener()
  }

  /** Whether the caller has given up. */
  get given(): boolean {
    return this.#given
  }

  /** Gives up: the listener is called (once). */
  give(): void {
    if (this.#given) return
    this.#given = true
    this.#listener?.()
  }
}

/** One connection of the pool, held from {@link DriverAdapter.acquire} until released or discarded. */
export interface AdapterConnection {
  /** One simple-protocol Query message (see `Session.simple`); rejects with the driver's error. */
  simple(text: string, copies?: readonly Iterable<Buffer>[]): Promise<SimpleResult>
  /** Pipelined extended-protocol statements (see `Session.pipeline`); only where the adapter pipelines. */
  pipeline?(statements: readonly PipelinedStatement[]): Promise<PromiseSettledResult<StatementResult>[]>
  /**
   * The connection's metered socket, once it is known: at once where the client exposes its socket
   * (pg), else once its first query was written (postgres.js: found by its cancel key). Undefined for
   * a socket opened before the meters were put on the client.
   */
  metered(meters: Meters): MeteredSocket | undefined
  /** The server process id the client got when the connection opened (its cancel key), if known. */
  processId(): number | undefined
  /**
   * Calls `onEnd` when the driver reports the connection gone (besides its socket's end, which the
   * meter reports). Returns how to stop listening.
   */
  watchEnd(onEnd: (cause: DriverError) => void): () => void
  /** Back to the pool, healthy. */
  release(): void
  /** The connection ended or was terminated: the pool drops it (or reconnects it on demand). */
  discard(cause: DriverError): void
  /** Closes the connection now, for a socket that is not metered (a metered one is destroyed directly). */
  destroy(): void
}
