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
  /** The transaction was rolled back without a statement error (the COMMIT answered ROLLBACK). */
  | 'ROLLED_BACK'
  /** The connection failed before the COMMIT was sent: nothing was committed. */
  | 'CONNECTION_LOST'
  /** The connection failed after the COMMIT was sent and before its answer: the outcome is unknown. */
  | 'COMMIT_OUTCOME_UNKNOWN'
  /** The flush did not settle within `flushTimeoutMs`. */
  | 'FLUSH_TIMEOUT'
  /** A configuration that cannot work (e.g. a pooler mode, an option out of range). */
  | 'INVALID_CONFIG'
  /** Reading the schema from the database failed. */
  | 'SCHEMA_READ_FAILED'

export interface PipeflushErrorDetails {
  /** The table the error is about, when there is one. */
  readonly table?: string | undefined
  /** The column the error is about, when there is one. */
  readonly column?: string | undefined
  /** Primary keys of the rows involved (each a single value or an array for composite keys). */
  readonly keys?: readonly unknown[] | undefined
  /** The constraint the server named. */
  readonly constraint?: string | undefined
  /** The SQLSTATE the server answered. */
  readonly sqlState?: string | undefined
  /** The flush id (see `FlushReport.flushId`), for flushes. */
  readonly flushId?: string | undefined
  /** The driver's error, or another underlying error. */
  readonly cause?: unknown
}

export class PipeflushError extends Error {
  readonly code: ErrorCode
  readonly table: string | undefined
  readonly column: string | undefined
  readonly keys: readonly unknown[] | undefined
  readonly constraint: string | undefined
  readonly sqlState: string | undefined
  readonly flushId: string | undefined

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
  }
}

/** Is `e` a pipeflush error, optionally of the given code? */
export function isPipeflushError(e: unknown, code?: ErrorCode): e is PipeflushError {
  return e instanceof PipeflushError && (code === undefined || e.code === code)
}
