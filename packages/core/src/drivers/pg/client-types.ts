/**
 * The part of node-postgres (the `pg` package, 8.23.x, with `pg-pool`) this adapter uses, declared
 * here so that nothing else imports the driver; the README beside this file says why each member is
 * needed.
 */
import type { Duplex } from 'node:stream'

/** What a query answers: `command` is the tag's first word (`INSERT`, `COMMIT`...). */
export interface PgResult {
  readonly command: string
  readonly rowCount: number | null
  readonly rows: readonly Record<string, unknown>[]
  /** One per column of the row description; empty for a statement without rows. */
  readonly fields: readonly unknown[]
}

export interface PgQueryConfig {
  readonly text: string
  readonly values?: readonly (string | null)[]
  /** Parsed once per connection, in the same write as its first execution (pg's `prepare`). */
  readonly name?: string
}

/** A client's protocol connection. */
export interface PgConnection {
  /** The socket (the TLS socket once upgraded). */
  readonly stream: Duplex
  /** Writes one CopyData message. */
  sendCopyFromChunk(chunk: Buffer): void
  /** Writes CopyDone. */
  endCopyFrom(): void
}

/** What a pg query object answers with, to the callback it was made with. */
export type PgCallback = (error: Error | undefined, result: PgResult | PgResult[] | undefined) => void

/**
 * A pg query object: the client writes it with `submit(connection)` when its turn
 * comes, then hands it each message of its answer (`handle...` methods): `handleCommandComplete` as each
 * statement completes, `handleError` with an error, `handleCopyInResponse` when the server asks for
 * COPY data (pg's own answers with CopyFail).
 */
export interface PgQuery {
  submit(connection: PgConnection): Error | null | undefined
  handleCopyInResponse(connection: PgConnection): void
  /** A statement of the message completed (its CommandComplete). */
  handleCommandComplete(message: unknown, connection: PgConnection): void
  /** The server's error (or the connection's): the callback is told it. */
  handleError(error: unknown, connection: PgConnection): void
}

/**
 * pg's Query class, as the client's class names it (`Client.Query`). A subclass passes the pipeline
 * mode's check for custom query objects (`query instanceof Query`), which refuses other objects with
 * a `submit` method.
 */
export type PgQueryClass = new (text: string, values: undefined, callback: PgCallback) => PgQuery

/** A client checked out of a pool. */
export interface PgPoolClient {
  /** A string without values: one simple-protocol Query; several statements answer a result each. */
  query(config: PgQueryConfig | string): Promise<PgResult | PgResult[]>
  /**
   * The same with a callback: pg then makes no promise. In pipeline mode the query is written before
   * this returns.
   */
  query(
    config: PgQueryConfig,
    callback: (error: Error | undefined, result: PgResult | PgResult[] | undefined) => void,
  ): void
  /** A query object made by the client's own `Query` class (or a subclass), answered to its callback. */
  query(query: PgQuery): unknown
  /** Back to the pool; with an error, the pool closes and drops the client (pg-pool's release). */
  release(error?: Error | boolean): void
  /**
   * Whether queries are pipelined (read by the client at every query): each query is written at once
   * with its own Sync, without waiting for earlier ones.
   */
  readonly pipeline?: boolean
  /** Its protocol connection; `stream` carries the bytes (TLS once upgraded). */
  readonly connection: PgConnection
  /** Its class, whose `Query` is the query class the client checks custom query objects against. */
  readonly constructor: { readonly Query?: PgQueryClass }
  readonly processID: number | null
  readonly host?: string
  readonly port?: number
  on(event: 'error' | 'end', listener: (error?: unknown) => void): unknown
  off(event: 'error' | 'end', listener: (error?: unknown) => void): unknown
}

/** The options a pool passes to each client it makes (`new Client(options)`). */
export interface PgPoolOptions {
  /**
   * A socket, or a function returning one, for each new client. Read when a client is made, so a function set after the pool was made applies to its later clients.
   */
  stream?: unknown
  pipeline?: boolean
  /** The pool's own type parsers (`getTypeParser`), over pg's global ones. */
  types?: unknown
  host?: string
  port?: number | string
  connectionString?: string
  connectionTimeoutMillis?: number
}

/** A `pg.Pool`. */
export interface PgPool {
  connect(): Promise<PgPoolClient>
  /**
   * The callback form: no promise made (pg-pool makes two for the promise form). A pool that does not
   * take a callback answers a promise instead.
   */
  connect(
    callback: (error: Error | undefined, client: PgPoolClient | undefined) => void,
  ): Promise<PgPoolClient> | undefined
  query(config: PgQueryConfig | string): Promise<PgResult | PgResult[]>
  /**
   * Ends the pool once its clients are given back; with a callback, answers by it. Wrapped by the
   * adapter so that pipeflush's requests queued for a client are served first (see `ClientEnd`).
   */
  end?(callback?: (error?: Error) => void): Promise<void> | undefined
  readonly options: PgPoolOptions
  readonly totalCount: number
  on(event: string, listener: (...args: unknown[]) => void): unknown
}
