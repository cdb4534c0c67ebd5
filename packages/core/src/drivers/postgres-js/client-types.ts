/**
 * The part of postgres.js (the `postgres` package, 3.4.x) this adapter uses, declared here so that
 * nothing else imports the driver; the README beside this file says why each member is needed.
 */
import type { Socket } from 'node:net'

/** A socket factory: postgres.js's `socket` option, called at every connect. */
export type SocketFactory = (options: PostgresJsOptions) => Socket | Promise<Socket>

/** The parsed options every connection of a client shares (`sql.options`). */
export interface PostgresJsOptions {
  /** How postgres.js renames and converts what it reads (the `transform` option), as it parsed it. */
  readonly transform?: {
    readonly column?: { readonly from?: ((name: string) => unknown) | undefined }
    readonly row?: { readonly from?: ((row: Record<string, unknown>) => unknown) | undefined }
    readonly value?: { readonly from?: ((value: unknown, column: object) => unknown) | undefined }
  }
  /** The parsers of values by type oid (the `types` option's and postgres.js's own), which every connection shares. */
  readonly parsers?: Readonly<Record<number, ((text: string) => unknown) | undefined>>
  host: readonly string[]
  port: readonly number[]
  /** A unix socket path, or false. */
  path?: string | false | undefined
  /** Seconds (the connect timer; it starts only after the socket exists). */
  connect_timeout?: number | undefined
  /** False when the client was made with `prepare: false`. */
  prepare?: boolean | undefined
  /** Read by `createSocket` at every connect, so a factory set after the client was made applies to later connections. */
  socket?: SocketFactory | undefined
  ssl?: unknown
  /**
   * Whether each new connection asks the server for the array types before it is used (read at every
   * connect; the types fetched are stored in `shared` and the parsers, which every connection of the
   * client shares).
   */
  fetch_types?: boolean
  /**
   * The option, the URL's parameter or `PGTARGETSESSIONATTRS`, or null. Each connection checks it at
   * its first ReadyForQuery, and moves on to the next host when it does not match.
   */
  target_session_attrs?: string | null | undefined
  /**
   * `retries`: the connection failures counted since a connection last opened (`src/index.js` line 498),
   * from which a closed connection's wait before it reconnects is computed (`src/connection.js` line 456).
   */
  readonly shared?: { readonly typeArrayMap?: Readonly<Record<string, unknown>>; readonly retries?: number }
  /** Seconds to wait before a connection that closed reconnects, or a function of `shared.retries` (`src/index.js` line 456). */
  readonly backoff?: number | ((retries: number) => number)
}

/** A result: an array of rows with its command tag; `columns` is set when a row description came. */
export interface PostgresJsResult extends ReadonlyArray<Record<string, unknown>> {
  readonly command?: string
  readonly columns?: readonly unknown[] | null
  readonly count?: number | null
  /** The connection's cancel key (the connection sets it on every result). */
  readonly state?: { readonly pid: number | null; readonly secret: number | null } | null
}

/**
 * A query: a lazy promise, sent on its first `then`/`execute` one microtask later. `state` is the
 * connection's cancel key object from the moment the connection executes it.
 */
export interface PostgresJsQuery extends Promise<PostgresJsResult | PostgresJsResult[]> {
  execute(): this
  /**
   * Cancels the query: one not written yet is rejected (57014) and never written; one running is
   * cancelled by the server (a cancel request on a connection of its own).
   */
  cancel(): unknown
  readonly state: { readonly pid: number | null; readonly secret: number | null } | null
  /**
   * Settles the query: an own property the connection calls with the results at ReadyForQuery, and
   * earlier with a `Writable` when the server asks for COPY data (CopyInResponse). postgres.js itself
   * replaces it (for a cursor).
   */
  resolve: (value: unknown) => void
  /** Rejects the query: an own property, like `resolve`. */
  reject: (error: unknown) => void
}

export interface UnsafeOptions {
  prepare?: boolean
  /**
   * Called with the connection object when the query was written without backpressure. Must return
   * true: a falsy result makes the connection stop pipelining.
   */
  onexecute?: (connection: PostgresJsConnection) => unknown
}

/** The connection object postgres.js passes to `onexecute`. */
export interface PostgresJsConnection {
  /**
   * Writes a query on the connection: what the pool and a reservation call; truthy when more may be
   * pipelined behind it. The connection's
   * own queries (its startup, the array types) call the inner function, not this property. Replaced
   * by `connection-guard.ts`.
   */
  execute: (query: PostgresJsQuery) => unknown
  /** Closes the socket (after a Terminate message); in-flight queries reject with CONNECTION_DESTROYED. */
  terminate(): void
  /**
   * Called once by the pool when the connection's socket closed; the hook postgres.js's own
   * `sql.begin` sets.
   */
  onclose?: ((error: unknown) => void) | null
}

/** A connection reserved from the pool (`sql.reserve()`). */
export interface PostgresJsReserved {
  /**
   * Without parameters a simple-protocol Query (postgres.js sends a query given no parameters so);
   * several statements answer an array of results, one per statement that returned rows.
   */
  unsafe(text: string, params?: readonly unknown[], options?: UnsafeOptions): PostgresJsQuery
  /** Puts the connection back in the pool; never after its socket closed. */
  release(): void
}

/** A postgres.js client: the `sql` function returned by `postgres(url, options)`. */
export interface PostgresJsSql {
  (strings: TemplateStringsArray, ...values: unknown[]): PostgresJsQuery
  unsafe(text: string, params?: readonly unknown[], options?: UnsafeOptions): PostgresJsQuery
  reserve(): Promise<PostgresJsReserved>
  begin(...args: unknown[]): Promise<unknown>
  readonly options: PostgresJsOptions
}
