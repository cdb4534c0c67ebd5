/**
 * Every error pipeflush throws is a {@link PipeflushError} with a stable `code`. Match on `code`,
 * never on the message.
 *
 * @example
 * try { await em.flush() } catch (e) {
 *   if (e instanceof PipeflushError && e.code === 'OPTIMISTIC_LOCK') retry()
 * }
 */
export type ErrorCode =
  /** A table that is not in the schema model. */
  | 'UNKNOWN_TABLE'
  /** A column that is not in the table. */
  | 'UNKNOWN_COLUMN'
  /** A relation (in a graph load's `with`) that the table does not have. */
  | 'UNKNOWN_RELATION'
  /** A relation navigated on an entity whose related rows were not loaded (never a hidden query). */
  | 'NOT_LOADED'
  /** A value that cannot be stored exactly in its column (undefined, NaN, wrong type, out of range...). */
  | 'INVALID_VALUE'
  /** A table pipeflush cannot write (no primary key, a generated column written...). */
  | 'UNSUPPORTED_TABLE'
  /** An entity used in a way its state does not allow (removed entity assigned, foreign entity...). */
  | 'INVALID_STATE'
  /** `load` found no row with that key. */
  | 'NOT_FOUND'
  /** A cycle of NOT NULL, non-deferrable foreign keys among new rows: no insert order exists. */
  | 'UNRESOLVABLE_CYCLE'
  /** A row with the same key is already managed, or two new rows share a key. */
  | 'DUPLICATE_KEY'
  /** The server rejected a statement because of a constraint (unique, foreign key, check, not null). */
  | 'CONSTRAINT_VIOLATION'
  /** An update or delete matched fewer rows than expected: a version column changed or the row is gone. */
  | 'OPTIMISTIC_LOCK'
  /** The server rejected a statement for another reason. */
  | 'STATEMENT_FAILED'
  /**
   * A key's sequence has fewer values left than the flush needs new ids from it (it does not cycle,
   * and is near its MAXVALUE, or its MINVALUE counting down). Found before anything is sent: nothing
   * was committed, and the sequence's last values are left to whoever fits in them.
   */
  | 'SEQUENCE_EXHAUSTED'
  /**
   * A write reached a server that only reads (a standby, or one with `default_transaction_read_only`:
   * SQLSTATE 25006), as after a failover to a pool still pointing at the old primary: nothing was committed.
   */
  | 'READ_ONLY_SERVER'
  /**
   * The transaction a locking read began (`lock: 'update'`) ended before the flush: held longer than
   * `flushTimeoutMs`, its connection lost, or a read in it failed. Its locks are gone; nothing was
   * committed.
   */
  | 'LOCKS_RELEASED'
  /** The transaction was rolled back without a statement error (the COMMIT answered ROLLBACK). */
  | 'ROLLED_BACK'
  /** The connection failed before the COMMIT was sent: nothing was committed. */
  | 'CONNECTION_LOST'
  /** The server refused the login (wrong password, unknown role: SQLSTATE class 28). Nothing was sent. */
  | 'LOGIN_FAILED'
  /** The database named in the connection does not exist (SQLSTATE 3D000). Nothing was sent. */
  | 'DATABASE_NOT_FOUND'
  /** The TLS handshake failed or the server refused TLS (certificate, host name, no SSL). Nothing was sent. */
  | 'TLS_FAILED'
  /** The server could not be reached (connection refused, unknown host, no route to it). Nothing was sent. */
  | 'HOST_UNREACHABLE'
  /** The connection failed after the COMMIT was sent and before its answer: the outcome is unknown. */
  | 'COMMIT_OUTCOME_UNKNOWN'
  /** The flush did not settle within `flushTimeoutMs`. */
  | 'FLUSH_TIMEOUT'
  /** A read (`find`, `load`, `wasCommitted`) did not settle within `flushTimeoutMs`; its connection was terminated. */
  | 'QUERY_TIMEOUT'
  /** A configuration that cannot work (e.g. a pooler mode, an option out of range). */
  | 'INVALID_CONFIG'
  /** Reading the schema from the database failed. */
  | 'SCHEMA_READ_FAILED'
  /**
   * A schema declared in code (tables an integration such as `@pipeflush/drizzle` reads from the
   * application's definitions) disagrees with the database's catalog: a table or column missing,
   * another type, nullability or primary key. Found at start, before any write.
   */
  | 'SCHEMA_MISMATCH'
  /** A flush hook threw (its error is the `cause`): nothing was sent, or, for `afterCommit`, the commit stands. */
  | 'HOOK_FAILED'
  /** The flush hooks kept changing the unit of work past the round limit: nothing was sent. */
  | 'HOOK_LOOP'
  /** pipeflush broke one of its own invariants: a bug to report, with the message. */
  | 'INTERNAL_ERROR'

export interface PipeflushErrorDetails {
  /** The table the error is about, when there is one. */
  readonly table?: string | undefined
  /** The column the error is about, when there is one. */
  readonly column?: string | undefined
  /**
   * Primary keys of the rows involved (each a single value or an array for composite keys). For a
   * `CONSTRAINT_VIOLATION` of a statement of several rows, the rows the server's detail names (a
   * duplicate key, a missing reference) or that hold the NULL refused; every row of the statement
   * where they cannot be told apart (a check).
   */
  readonly keys?: readonly unknown[] | undefined
  /** The constraint the server named. */
  readonly constraint?: string | undefined
  /** The SQLSTATE the server answered. */
  readonly sqlState?: string | undefined
  /** The flush id (see `FlushReport.flushId`), for flushes. */
  readonly flushId?: string | undefined
  /** The driver's error, or another underlying error. */
  readonly cause?: unknown
  /** The value at fault (`INVALID_VALUE`), which the message does not show. */
  readonly value?: unknown
  /** The server's DETAIL (e.g. `Key (email)=(...) already exists.`), which the message does not show. */
  readonly detail?: string | undefined
}

/**
 * Marks a pipeflush error whatever copy of `@pipeflush/core` made it: an application with two copies
 * installed (a typed package nesting another version) still tells them by `isPipeflushError` and
 * `instanceof PipeflushError`.
 */
const BRAND: unique symbol = Symbol.for('pipeflush.error')

export class PipeflushError extends Error {
  /** `instanceof PipeflushError` holds for an error any copy of `@pipeflush/core` made. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true
  }

  readonly code: ErrorCode
  readonly table: string | undefined
  readonly column: string | undefined
  readonly keys: readonly unknown[] | undefined
  readonly constraint: string | undefined
  readonly sqlState: string | undefined
  readonly flushId: string | undefined
  /**
   * The value at fault (`INVALID_VALUE`) and the server's DETAIL, kept for code that wants them but
   * out of `message` and `stack` (they go to logs and error trackers, values with them), and not
   * enumerable (serializers that copy an error's properties leave them out). The `errorValues`
   * option of `connect` puts them in messages.
   */
  declare readonly value: unknown
  declare readonly detail: string | undefined

  constructor(code: ErrorCode, message: string, details: PipeflushErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    this.name = 'PipeflushError'
    this.code = code
    this.table = details.table
    this.column = details.column
    this.keys = details.keys
    this.constraint = details.constraint
    this.sqlState = details.sqlState
    this.flushId = details.flushId
    Object.defineProperty(this, 'value', { value: details.value, enumerable: false })
    Object.defineProperty(this, 'detail', { value: details.detail, enumerable: false })
  }

  /**
   * What `JSON.stringify(error)` writes: the name, code and message and the fields about what failed,
   * a bigint key as its decimal text (`JSON.stringify` throws on a bigint: a logger's catch block
   * would throw its own error and lose this one). Not the value at fault, the DETAIL or the cause.
   *
   * @example
   * JSON.stringify(e) // {"name":"PipeflushError","code":"CONSTRAINT_VIOLATION","message":"...","keys":["11"],...}
   */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      table: this.table,
      column: this.column,
      keys: this.keys?.map(jsonKey),
      constraint: this.constraint,
      sqlState: this.sqlState,
      flushId: this.flushId,
    }
  }
}

/** A key as JSON can hold it: a bigint (or a composite key's bigint part) as its decimal text. */
function jsonKey(key: unknown): unknown {
  if (typeof key === 'bigint') return key.toString()
  return Array.isArray(key) ? key.map(jsonKey) : key
}

Object.defineProperty(PipeflushError.prototype, BRAND, { value: true })

/** Is `e` a pipeflush error (made by any copy of `@pipeflush/core`), optionally of the given code? */
export function isPipeflushError(e: unknown, code?: ErrorCode): e is PipeflushError {
  return e instanceof PipeflushError && (code === undefined || e.code === code)
}

/**
 * A server's error message without the values it quotes: data exceptions (SQLSTATE class 22, e.g.
 * `invalid input syntax for type integer: "4111..."`, `value "..." is out of range`) quote the value
 * at fault in double quotes, shown as `"(a value)"`. Other messages name tables, columns and
 * constraints, and are kept. The server's DETAIL (where a unique violation shows the key) is never in
 * a message.
 *
 * The server quotes a value as it is, its own double quotes, backslashes and line breaks unescaped
 * (`"card "4111" exp"`): no quote in the message tells where a value ends. So everything from the
 * message's first double quote to its last is hidden, whatever lies between; a type name the server
 * quotes next to the value (`enum "Mood": "..."`) goes with it. A lone quote hides the rest of the
 * message.
 *
 * Messages go to logs and error trackers: a value the application wrote stays out of them.
 */
export function serverMessage(message: string, sqlState: string | undefined): string {
  // 2200H (a sequence past its MAXVALUE or MINVALUE) quotes the sequence's name, and 22P05 (a
  // character the database's encoding lacks) its encodings' names, not a value.
  if (!sqlState?.startsWith('22') || sqlState === '2200H' || sqlState === '22P05') return message
  const first = message.indexOf('"')
  if (first < 0) return message
  const last = message.lastIndexOf('"')
  return `${message.slice(0, first)}"(a value)"${last > first ? message.slice(last + 1) : ''}`
}

/**
 * `e` with what its message leaves out put back in it (the `errorValues` option of `connect`): the
 * value at fault, the server's DETAIL, and the server's own message where values were hidden.
 * Mutates and returns `e`; anything but a `PipeflushError` is returned as it is.
 *
 * Off by default, as messages reach logs; on, a developer sees the value at fault at once.
 */
export function withValuesShown(e: unknown): unknown {
  if (!(e instanceof PipeflushError) || shown.has(e)) return e
  shown.add(e)
  const parts: string[] = []
  if (e.value !== undefined) parts.push(`value: ${showValue(e.value)}`)
  if (e.detail !== undefined) parts.push(`detail: ${e.detail}`)
  const server = (e.cause as { message?: unknown } | undefined)?.message
  if (e.sqlState?.startsWith('22') && typeof server === 'string') parts.push(`server: ${server}`)
  if (parts.length > 0) e.message = `${e.message} [${parts.join('; ')}]`
  return e
}

const shown = new WeakSet<PipeflushError>()

function showValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'bigint') return `${value}n`
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString()
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}
