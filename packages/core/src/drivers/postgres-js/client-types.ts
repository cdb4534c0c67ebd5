/**
 * The part of postgres.js (the `postgres` package, 3.4.x) this adapter uses, declared here so that
 * nothing else imports the driver. Line numbers are of postgres 3.4.9's `src/` (ESM build); the
 * README beside this file says why each member is needed.
 */
import type { Socket } from 'node:net'

/** A socket factory: postgres.js's `socket` option (`connection.js` `createSocket`, line 129). */
export type SocketFactory = (options: PostgresJsOptions) => Socket | Promise<Socket>

/** The parsed options every connection of a client shares (`sql.options`; `index.js` line 76). */
export interface PostgresJsOptions {
  host: readonly string[]
  port: readonly number[]
  /** A unix socket path, or false. */
  path?: string | false | undefined
  /** Seconds (`connection.js` line 76: the connect timer; it starts only after the socket exists). */
  connect_timeout?: number | undefined
  /** False when the client was made with `prepare: false`. */
  prepare?: boolean | undefined
  /** Read by `createSocket` at every connect, so a factory set after the client was made applies to later connections. */
  socket?: SocketFactory | undefined
  ssl?: unknown
  /**
   * Whether each new connection asks the server for the array types before it is used (`connection.js`
   * line 368 reads it at every connect; `fetchArrayTypes`, line 768, stores them in `shared` and the
   * parsers, which every connection of the client shares).
   */
  fetch_types?: boolean
  /**
   * The option, the URL's parameter or `PGTARGETSESSIONATTRS` (`index.js` line 504), or null. Each
   * connection checks it at its first ReadyForQuery (`connection.js` line 555, `tryNext` line 790).
   */
  target_session_attrs?: string | null | undefined
  readonly shared?: { readonly typeArrayMap?: Readonly<Record<string, unknown>> }
}

/** A result: an array of rows with its command tag; `columns` is set when a row description came. */
export interface PostgresJsResult extends ReadonlyArray<Record<string, unknown>> {
  readonly command?: string
  readonly columns?: readonly unknown[] | null
  readonly count?: number | null
  /** The connection's cancel key (`connection.js` line 598 sets `result.state = backend`). */
  readonly state?: { readonly pid: number | null; readonly secret: number | null } | null
}

/**
 * A query: a lazy promise, sent on its first `then`/`execute` one microtask later (`query.js` `handle`).
 * `state` is the connection's cancel key object from the moment the connection executes it
 * (`connection.js` line 167).
 */
export interface PostgresJsQuery extends Promise<PostgresJsResult | PostgresJsResult[]> {
  execute(): this
  readonly state: { readonly pid: number | null; readonly secret: number | null } | null
  /**
   * Settles the query (`query.js` line 26): an own property the connection calls with the results at
   * ReadyForQuery, and earlier with a `Writable` when the server asks for COPY data
   * (`connection.js` `CopyInResponse`). postgres.js itself replaces it (`cursor`, `query.js` line 97).
   */
  resolve: (value: unknown) => void
  /** Rejects the query (`query.js` line 27): an own property, like `resolve`. */
  reject: (error: unknown) => void
}

export interface UnsafeOptions {
  prepare?: boolean
  /**
   * Called with the connection object when the query was written without backpressure (`connection.js`
   * line 177). Must return true: a falsy result makes the connection stop pipelining.
   */
  onexecute?: (connection: PostgresJsConnection) => unknown
}

/** The connection object postgres.js passes to `onexecute` (`connection.js` line 110). */
export interface PostgresJsConnection {
  /**
   * Writes a query on the connection (`connection.js` line 155): what the pool and a reservation call
   * (`index.js` lines 230, 343, 412); truthy when more may be pipelined behind it. The connection's
   * own queries (its startup, the array types) call the inner function, not this property. Replaced
   * by `connection-guard.ts`.
   */
  execute: (query: PostgresJsQuery) => unknown
  /** Closes the socket (after a Terminate message); in-flight queries reject with CONNECTION_DESTROYED. */
  terminate(): void
  /**
   * Called once by the pool when the connection's socket closed (`index.js` line 424); the hook
   * postgres.js's own `sql.begin` sets.
   */
  onclose?: ((error: unknown) => void) | null
}

/** A connection reserved from the pool (`index.js` `reserve`, line 203). */
export interface PostgresJsReserved {
  /**
   * Without parameters a simple-protocol Query (`index.js` line 124: `simple: args.length === 0`);
   * several statements answer an array of results, one per statement that returned rows.
   */
  unsafe(text: string, params?: readonly unknown[], options?: UnsafeOptions): PostgresJsQuery
  /** Puts the connection back in the pool (`index.js` line 220); never after its socket closed. */
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
