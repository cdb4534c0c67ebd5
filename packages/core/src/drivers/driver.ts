/**
 * The driver boundary: everything pipeflush asks of a PostgreSQL client, in the few shapes it needs.
 * Nothing above this file imports `postgres` or `pg`; each driver has one adapter that implements
 * {@link Driver} (see `postgres-js/` and `pg/`, each with a README of what it relies on).
 *
 * Values cross the boundary as text: pipeflush writes every value in its PostgreSQL text form and
 * selects every value it reads as `::text`, so results do not depend on the client's type parsers.
 */

/** A row as the driver returned it: column name to value (text, for what pipeflush selects). */
export type Row = Readonly<Record<string, unknown>>

/** A parameter: a value's text form, or an array of them (sent as one `text[]` literal), or null. */
export type Param = string | null

/** One statement of a pipelined batch: extended protocol, parameters in text form. */
export interface PipelinedStatement {
  readonly text: string
  readonly params: readonly Param[]
  /**
   * A name to prepare it under on the connection (parsed once per connection, in the same write as its
   * first execution); undefined for an unnamed statement (parsed every time).
   */
  readonly name?: string | undefined
}

/** What one statement answered: its command tag (`INSERT 0 3`, `COMMIT`, `ROLLBACK`) and rows. */
export interface StatementResult {
  readonly command: string
  readonly rows: readonly Row[]
}

/**
 * What a simple-protocol query of several statements answered: the command tag of its last statement,
 * and the rows of each statement that returned rows (a row description), in order.
 */
export interface SimpleResult {
  readonly lastCommand: string
  readonly rowSets: readonly (readonly Row[])[]
}

/** A driver's error, in one shape for both drivers. The driver's own error is `cause`. */
export interface DriverError {
  /**
   * `connection`: the connection is gone or could not be made (nothing more will come from it);
   * `server`: the server answered an error (SQLSTATE in `sqlState`);
   * `client`: the driver refused before sending (a bug or a misuse: pipeflush validates first).
   */
  readonly kind: 'connection' | 'server' | 'client'
  readonly message: string
  readonly sqlState?: string | undefined
  readonly constraint?: string | undefined
  /** The schema of the table the server named. */
  readonly schema?: string | undefined
  readonly table?: string | undefined
  readonly column?: string | undefined
  readonly detail?: string | undefined
  /** 1-based character position in the query text, for syntax and input errors. */
  readonly position?: number | undefined
  /** Where the server was: the context it reports (a function's line, a statement a trigger or a foreign key's action ran). */
  readonly where?: string | undefined
  /** The server's function that raised it (`scanner_yyerror`, `base_yyparse`: the text did not parse). */
  readonly routine?: string | undefined
  /**
   * How many statements of a simple-protocol message of several the server completed before this
   * error: the failed one is the next (or none, when all completed: the error came at the end of the
   * message's transaction). Undefined where the driver does not tell.
   */
  readonly completed?: number | undefined
  /** The driver's error code for connection errors (`ECONNRESET`, `CONNECTION_CLOSED`...). */
  readonly code?: string | undefined
  /**
   * The query was refused before any byte of it was written (its connection's socket had ended: see
   * the postgres.js adapter's connection guard): the server never saw it, so a COMMIT in it did not
   * commit.
   */
  readonly unwritten?: true | undefined
  readonly cause: unknown
}

/** What a session measured on its socket (see `Session.costs`); undefined where it cannot be observed. */
export interface SessionCosts {
  readonly roundTrips: number | undefined
  readonly connectRoundTrips: number | undefined
  readonly bytes: { readonly sent: number; readonly received: number } | undefined
}

/**
 * One connection of the pool, held by one flush from {@link Driver.reserve} until {@link release}.
 * Statements sent on it run in order; a flush never sends on it after its socket ended.
 */
export interface Session {
  /**
   * One simple-protocol Query message (one write, no parameters): the statements of `text`, separated by
   * `;`, run in order; without BEGIN they run as one implicit transaction (all or nothing). Rejects with
   * the driver's error (see {@link Driver.toDriverError}).
   *
   * `copies` (only where {@link Driver.copies}): the data of each `COPY ... FROM STDIN` statement of
   * `text`, in order, each in chunks of COPY's text format (UTF-8), each ended by CopyDone. node-postgres
   * writes it right behind the message, in the same write: the server reads it when it reaches that
   * COPY, so a COPY costs no round trip of its own, and when a statement fails first the server drops
   * the data it did not read. postgres.js writes each COPY's data when the server asks for it (one
   * round trip per COPY). Either way the query answers as one without COPY: every statement's result,
   * or the server's error.
   */
  simple(text: string, copies?: readonly Iterable<Buffer>[]): Promise<SimpleResult>
  /**
   * Round trips each COPY of a {@link simple} message adds to it: 1 where the data goes when the
   * server asks for it (postgres.js); absent: 0. Counted when the socket cannot be observed.
   */
  readonly copyRoundTrips?: number
  /**
   * Extended-protocol statements written at once, each with its own Sync, answered in order: one round
   * trip for the whole batch, new statement names included. Present only where the driver pipelines
   * without describing a statement first (node-postgres in `pipeline` mode). One settled result per
   * statement, never a rejection.
   */
  pipeline?(statements: readonly PipelinedStatement[]): Promise<PromiseSettledResult<StatementResult>[]>
  /**
   * Round trips measured on this connection's socket since the reservation began (a connection opened
   * for this reservation counts from its first byte), or undefined when the socket cannot be observed
   * (then the flush counts its own waits).
   */
  roundTrips(): number | undefined
  /**
   * Bytes written and received on this connection's socket since the reservation began (from its first
   * byte when opened for it; the TLS handshake not seen); undefined when the socket cannot be observed.
   */
  bytes?(): { readonly sent: number; readonly received: number } | undefined
  /**
   * {@link roundTrips}, {@link connectRoundTrips} and {@link bytes} at once, the socket found once:
   * what a flush or a read reports when it is over.
   */
  costs?(): SessionCosts
  /** Whether the connection was opened for this reservation. */
  readonly opened: boolean
  /**
   * Round trips it took to get the connection: those of opening it when it was opened for this
   * reservation (its startup, authentication and the driver's own first queries), else 0; undefined
   * when the socket cannot be observed.
   */
  connectRoundTrips(): number | undefined
  /**
   * Round trips of opening connections the pool began while this reservation waited and that no
   * session counted: the reservation got another connection first (postgres.js hands a waiting
   * reservation whichever connection is free first). Each opening is claimed by one session only, at
   * this call; a promise resolves once each is over, or at `deadline` with the round trips so far (0
   * at once when there is none to wait for). Never rejects. Absent where the pool hands each new
   * connection to the request it opened it for.
   */
  openings?(deadline: number): number | Promise<number>
  /**
   * Calls `listener` with the cause once the connection's socket ends (closed or errored), in a
   * microtask after it did (or after this call, if it had): a promise's timing, without a promise per
   * session and per query. Returns how to stop listening.
   */
  onEnd(listener: (cause: DriverError) => void): () => void
  /** Whether the socket ended. */
  isEnded(): boolean
  /**
   * Closes the connection at once: whatever is in flight rejects, the server rolls back a transaction
   * that did not reach its COMMIT, the pool replaces the connection. Idempotent. `cancel` (a deadline
   * passed): the server is first asked to cancel what the backend runs, which a closed socket does
   * not stop while it waits on a lock or runs a long statement.
   */
  terminate(options?: { readonly cancel?: boolean }): void
  /** Gives the connection back to the pool (after its socket ended or a terminate, it is discarded). */
  release(): void
}

/** What a reservation may wait for. */
export interface ReserveOptions {
  /** `performance.now()` past which the reservation gives up (Infinity: never). */
  readonly deadline: number
  /**
   * For work admitted before the application ended the client (see {@link Driver.admit}): served
   * even once it is ending, where any other reservation is refused.
   */
  readonly admitted?: boolean | undefined
}

/**
 * A PostgreSQL client (a pool) as pipeflush uses it. Made by `driverFor(client)`.
 *
 * @example
 * const driver = driverFor(postgres(url)) // or new pg.Pool({ connectionString: url })
 * const rows = await driver.query('select 1 as one')
 */
export interface Driver {
  /** `postgres.js` or `pg`. */
  readonly name: 'postgres.js' | 'pg'
  /** Where the database is, for messages: `host:port` (or the socket path), never credentials. */
  readonly address: string
  /** The database's name, where the client's options say it. */
  readonly database?: string | undefined
  /**
   * One autocommit query on any connection of the pool. Without `params`, a simple-protocol query
   * (statements may be several: the rows are the last statement's); with `params` (text forms), one
   * extended-protocol statement, sent with its Parse in the same write (one round trip). Within
   * `timeoutMs` (the wait for a connection included; none by default), else a connection error of
   * code `DEADLINE`.
   */
  query(text: string, params?: readonly Param[], timeoutMs?: number): Promise<readonly Row[]>
  /**
   * A connection of the pool for one flush. Rejects with a connection {@link DriverError} when no
   * connection could be opened (after the driver's connect timeout at the latest), or when `deadline`
   * passed.
   */
  reserve(options: ReserveOptions): Promise<Session>
  /**
   * Work started now that reserves its connection later (a read batch gathers its reads until the
   * next macrotask): the client's end waits until the returned function is called, and its
   * reservations (`admitted`) are served. The refusal instead when the application ended the client:
   * the work is refused, as anything started after the end.
   */
  admit(): (() => void) | DriverError
  /** The driver's error in pipeflush's shape. */
  toDriverError(error: unknown): DriverError
  /**
   * Whether a connection pooler (PgBouncer, Supavisor...) sits between the client and the server: the
   * cancel key the client got names another process than `pg_backend_pid()`. One query, cached;
   * within `timeoutMs` as {@link query}.
   */
  detectPooler(timeoutMs?: number): Promise<boolean>
  /**
   * Whether the client's sessions pipeline extended-protocol statements ({@link Session.pipeline}):
   * then the statements may be named, prepared once per connection.
   */
  readonly pipelines: boolean
  /** Whether {@link Session.simple} takes COPY data: large inserts may then be sent as COPY. */
  readonly copies: boolean
}
