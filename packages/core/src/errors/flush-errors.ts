import { withArticle } from './article.ts'
import { PipeflushError, type PipeflushErrorDetails, serverMessage } from './pipeflush-error.ts'

/** SQLSTATE read_only_sql_transaction: a write (or a lock) refused by a server that only reads. */
const READ_ONLY_SQLSTATE = '25006'

/** `READ_ONLY_SERVER`: `what` refused by a server that only reads (SQLSTATE 25006), then `advice`. */
function refusedAsReadOnly(
  what: string,
  failure: { readonly message: string; readonly sqlState?: string | undefined; readonly cause: unknown },
  details: PipeflushErrorDetails,
  advice: string,
): PipeflushError {
  return new PipeflushError(
    'READ_ONLY_SERVER',
    `${what} was refused by a server that only reads (a standby, or default_transaction_read_only): ${failure.message}. ${advice}`,
    { ...details, sqlState: failure.sqlState, cause: failure.cause },
  )
}

const FLUSH_LOG_ADVICE = 'Check the flush log (em.wasCommitted(flushId)) before retrying.'

/**
 * Named constructors of errors about a flush and the connections it needs: connection lost or never
 * had, the commit's outcome, timeouts, statements the server refused, hooks, and pipeflush's own
 * invariants. Assembled into `errors` by `errors.ts`, the one entry importers use.
 */
export const flushErrors = {
  /** The connection failed before the COMMIT was sent: nothing was committed. */
  connectionLost(flushId: string, why: string, cause?: unknown, sqlState?: string): PipeflushError {
    return new PipeflushError(
      'CONNECTION_LOST',
      `The flush lost its connection before its COMMIT was sent (${why}). Nothing was committed; the unit of work is unchanged: flush again to retry.`,
      { flushId, cause, sqlState },
    )
  },

  /** No connection could be had for the flush: nothing was sent. */
  noConnection(flushId: string, why: string, cause?: unknown, sqlState?: string): PipeflushError {
    return new PipeflushError(
      'CONNECTION_LOST',
      `The flush could not get a connection (${why}). Nothing was sent; the unit of work is unchanged: flush again to retry.`,
      { flushId, cause, sqlState },
    )
  },

  /**
   * The application ended the flush's client (`pool.end()`, `sql.end()`) before the flush: nothing was
   * sent, and no flush on that client can succeed (not one to retry as it is).
   */
  clientEnded(flushId: string, why: string, cause?: unknown): PipeflushError {
    return new PipeflushError(
      'CONNECTION_LOST',
      `The flush could not get a connection (${why}). Nothing was sent; the unit of work is unchanged, but its client was ended (pool.end() or sql.end()) and serves no more queries: flush it on a client that is open.`,
      { flushId, cause },
    )
  },

  /** The connection failed or stalled after the COMMIT was sent, before its answer. */
  commitOutcomeUnknown(flushId: string, why: string, cause?: unknown, sqlState?: string): PipeflushError {
    return new PipeflushError(
      'COMMIT_OUTCOME_UNKNOWN',
      `The flush's COMMIT was sent but its answer never came (${why}): flush ${flushId} may or may not be committed. ${FLUSH_LOG_ADVICE}`,
      { flushId, cause, sqlState },
    )
  },

  /** `flushTimeoutMs` passed before the COMMIT was sent. */
  flushTimeout(flushId: string, timeoutMs: number, where: string): PipeflushError {
    return new PipeflushError(
      'FLUSH_TIMEOUT',
      `The flush did not settle within flushTimeoutMs (${timeoutMs} ms; ${where}). Its COMMIT was not sent: nothing was committed. The unit of work is unchanged: flush again to retry.`,
      { flushId },
    )
  },

  /**
   * The application's pool gave up waiting for a free connection for `what` (`why`: its limit), before
   * the flush's or read's own deadline: `FLUSH_TIMEOUT` for a flush (`flushId`), else
   * `QUERY_TIMEOUT`, as when pipeflush's deadline passes while waiting. Nothing was sent.
   */
  poolTimeout(what: string, why: string, flushId: string | undefined, cause: unknown): PipeflushError {
    if (flushId === undefined)
      return new PipeflushError('QUERY_TIMEOUT', `${what} got no connection: ${why}.`, { cause })
    return new PipeflushError(
      'FLUSH_TIMEOUT',
      `The flush got no connection: ${why}. Nothing was sent: nothing was committed. The unit of work is unchanged: flush again to retry.`,
      { flushId, cause },
    )
  },

  /** The COMMIT answered ROLLBACK without a statement error to explain it. */
  rolledBack(flushId: string, command: string): PipeflushError {
    return new PipeflushError('ROLLED_BACK', `COMMIT answered ${command}: nothing was committed.`, {
      flushId,
    })
  },

  /**
   * A query outside a flush failed (a read, the schema, the flush log): `CONNECTION_LOST` when the
   * connection failed, `READ_ONLY_SERVER` when a server that only reads refused it (SQLSTATE 25006: a
   * locking read, the flush log's insert of `wasCommitted`, on a standby), else `STATEMENT_FAILED`.
   * `failure` is the driver's error in pipeflush's shape.
   */
  queryFailed(
    what: string,
    failure: {
      readonly kind: string
      readonly message: string
      readonly sqlState?: string | undefined
      readonly detail?: string | undefined
      readonly cause: unknown
    },
    details: PipeflushErrorDetails = {},
  ): PipeflushError {
    if (failure.kind !== 'connection' && failure.sqlState === READ_ONLY_SQLSTATE)
      return refusedAsReadOnly(what, failure, details, 'Point the pool at the primary.')
    return new PipeflushError(
      failure.kind === 'connection' ? 'CONNECTION_LOST' : 'STATEMENT_FAILED',
      `${what} failed: ${serverMessage(failure.message, failure.sqlState)}.`,
      { ...details, sqlState: failure.sqlState, detail: failure.detail, cause: failure.cause },
    )
  },

  /**
   * A flush's write refused by a server that only reads (SQLSTATE 25006).
   */
  readOnlyServer(
    what: string,
    failure: { readonly message: string; readonly sqlState?: string | undefined; readonly cause: unknown },
    details: PipeflushErrorDetails,
  ): PipeflushError {
    return refusedAsReadOnly(what, failure, details, 'Nothing was committed; point the pool at the primary.')
  },

  /**
   * A flush of a unit of work whose locking transaction ended before it (`why`): nothing was sent.
   */
  locksReleased(why: string, flushId?: string): PipeflushError {
    return new PipeflushError(
      'LOCKS_RELEASED',
      `The transaction holding this unit of work's row locks ended before the flush (${why}): its locks are gone and nothing was committed. Nothing was sent; the unit of work is as it was. Load the rows again with their lock (a new unit of work reads them as they are now) and flush.`,
      flushId === undefined ? {} : { flushId },
    )
  },

  /**
   * A locking read (`what`) of a batch in which another read failed: that failure ended the unit of
   * work's locking transaction (`why`), so the read's locks are not held. Its rows are not tracked.
   */
  lockNotHeld(what: string, why: string): PipeflushError {
    return new PipeflushError(
      'LOCKS_RELEASED',
      `${what} locks no row: the transaction holding this unit of work's row locks ended before it answered (${why}, by another read sent with it), its locks gone and nothing committed. Load the rows again with their lock, in a new unit of work when earlier locking reads of this one mattered (a flush of this one is told LOCKS_RELEASED).`,
    )
  },

  /**
   * A read did not settle within `flushTimeoutMs`, or within `limit` where something else set it
   * (`EntityManager.connect`'s own queries: `flushTimeoutMs`, but at least 10 s).
   */
  queryTimeout(what: string, timeoutMs: number, where: string, limit?: string): PipeflushError {
    const within =
      limit === undefined
        ? `flushTimeoutMs (${timeoutMs} ms; ${where})`
        : `${timeoutMs} ms (${limit}; ${where})`
    return new PipeflushError('QUERY_TIMEOUT', `${what} did not settle within ${within}.`)
  },

  /**
   * Code running in the flush threw (`cause`), not the connection nor the server: a pipeflush bug, or
   * the application's own code the driver runs (a type parser). Before the COMMIT was sent: nothing
   * was committed.
   */
  threwInFlush(flushId: string, cause: unknown): PipeflushError {
    const what = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)
    return new PipeflushError(
      'INTERNAL_ERROR',
      `The flush failed on an exception of code it ran (${what}), before its COMMIT was sent. Nothing was committed; the unit of work is unchanged. Unless it comes from the application's own code (a type parser of the driver), please report it with its cause.`,
      { flushId, cause },
    )
  },

  /** pipeflush broke one of its own invariants (`where`: the function; `what`: the invariant). */
  internal(where: string, what: string): PipeflushError {
    return new PipeflushError(
      'INTERNAL_ERROR',
      `pipeflush bug in ${where}: ${what}. Please report it with this message.`,
    )
  },

  /**
   * A flush hook threw: `hook` names it (`beforeFlush`, `book.beforeUpdate`, `afterCommit`). Before the
   * flush nothing was sent; after the commit, the commit stands.
   */
  hookFailed(hook: string, cause: unknown, table?: string): PipeflushError {
    // The cause's own "Nothing was sent." (a PipeflushError a hook let through) is said once, below.
    const why = (cause instanceof Error ? cause.message : String(cause))
      .replace(/\s*Nothing was sent\.?\s*$/, '')
      .replace(/\.\s*$/, '')
    const outcome =
      hook === 'afterCommit'
        ? 'The flush committed; this error does not undo it.'
        : 'Nothing was sent; the unit of work is as it was before the hooks ran.'
    return new PipeflushError('HOOK_FAILED', `The ${hook} hook threw: ${why}. ${outcome}`, { table, cause })
  },

  /** The driver could not reserve a connection for the flush (another failure than a dead server). */
  reservationFailed(flushId: string, why: string, cause?: unknown): PipeflushError {
    return new PipeflushError(
      'CONNECTION_LOST',
      `The flush could not get a connection: ${why}. Nothing was sent.`,
      {
        flushId,
        cause,
      },
    )
  },

  /**
   * A connection could not be opened, for a reason of its own (`code`: `LOGIN_FAILED`,
   * `DATABASE_NOT_FOUND`, `TLS_FAILED`, `HOST_UNREACHABLE`); `what` says what needed it. The
   * server's SQLSTATE is on the error; a password never is.
   */
  cannotConnect(
    code: 'LOGIN_FAILED' | 'DATABASE_NOT_FOUND' | 'TLS_FAILED' | 'HOST_UNREACHABLE' | 'INVALID_CONFIG',
    what: string,
    why: string,
    details: PipeflushErrorDetails = {},
  ): PipeflushError {
    const advice = {
      LOGIN_FAILED: 'check the user and password of the connection',
      DATABASE_NOT_FOUND: 'check the database name of the connection',
      TLS_FAILED: 'check the TLS settings (ssl option, certificates, host name)',
      HOST_UNREACHABLE: 'check the host and port, and that the server is up and reachable',
      INVALID_CONFIG:
        "check the connection's parameters: the server, or a pooler in front of it (PgBouncer takes only the startup parameters its ignore_startup_parameters lists), refused a setting sent as it opened (postgres.js sends a URL parameter it does not read, sslrootcert among them, as one)",
    }[code]
    return new PipeflushError(
      code,
      `${what} could not connect (${why}): ${advice}. Nothing was sent.`,
      details,
    )
  },

  /** A flush started while another of the same entity manager runs. */
  flushRunning(): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      'A flush of this entity manager is already running; await it first.',
    )
  },

  /**
   * An update or delete matched more rows than it sent keys: a key some rows share, which a primary
   * key allows only across an inheritance tree (a child table's rows are the parent's too, and a
   * primary key is not inherited). Retrying cannot help, unlike {@link optimisticLock}.
   */
  keyMatchedSeveralRows(
    table: string,
    kind: string,
    expected: number,
    matched: number,
    details: PipeflushErrorDetails = {},
  ): PipeflushError {
    return new PipeflushError(
      'STATEMENT_FAILED',
      `${kind} on ${table} matched ${matched} rows for ${expected} key(s): rows share a key (a table inheriting from ${table} holds a row with the same key: a primary key is not inherited, so a key matches the parent's row and the child's). Nothing was committed.`,
      { ...details, table },
    )
  },

  /** An update or delete matched fewer rows than it expected (`shown`: the keys as messages show them). */
  optimisticLock(
    table: string,
    kind: string,
    shown: string,
    keys: readonly unknown[],
    details: PipeflushErrorDetails = {},
  ): PipeflushError {
    return new PipeflushError(
      'OPTIMISTIC_LOCK',
      `Optimistic lock failed on ${table}: ${kind} of row(s) ${shown} matched no row (changed or deleted by another transaction; or hidden from this role by row-level security, or skipped by a trigger). Nothing was committed.`,
      { ...details, table, keys },
    )
  },

  /**
   * A row of `table` references, in `column`, a row of `target` the same flush upserted, and no row of
   * `target` holds the conflict values it was upserted with (a trigger changed them): its lookup found
   * nothing. A reference that cannot be made, reported as a constraint violation.
   */
  upsertedRowNotFound(
    table: string,
    column: string,
    target: string,
    details: PipeflushErrorDetails = {},
  ): PipeflushError {
    return new PipeflushError(
      'CONSTRAINT_VIOLATION',
      `${table}.${column} references ${withArticle(target)} row upserted by this flush, and no ${target} row holds the conflict values it was upserted with (a trigger, or the type's input, changed them): the reference cannot be made. Nothing was committed.`,
      { ...details, table, column },
    )
  },

  /** A statement of a flush (`what`) violated a constraint (`details.constraint`, when the server named it). */
  constraintViolation(what: string, message: string, details: PipeflushErrorDetails = {}): PipeflushError {
    const constraint = details.constraint ? `constraint "${details.constraint}"` : 'a constraint'
    return new PipeflushError(
      'CONSTRAINT_VIOLATION',
      `${what} violated ${constraint}: ${message}. Nothing was committed.`,
      details,
    )
  },

  /** A statement of a flush (`what`) failed for another reason than a constraint. */
  statementFailed(what: string, message: string, details: PipeflushErrorDetails = {}): PipeflushError {
    return new PipeflushError(
      'STATEMENT_FAILED',
      `${what} failed: ${message}. Nothing was committed.`,
      details,
    )
  },

  /** The driver refused to send the flush. */
  driverRefused(flushId: string, why: string, cause?: unknown): PipeflushError {
    return new PipeflushError(
      'STATEMENT_FAILED',
      `The driver refused the flush: ${why}. Nothing was committed.`,
      {
        flushId,
        cause,
      },
    )
  },

  /** The flush hooks still changed the unit of work after `rounds` rounds. */
  hookLoop(rounds: number): PipeflushError {
    return new PipeflushError(
      'HOOK_LOOP',
      `The flush hooks still changed the unit of work after ${rounds} rounds (a beforeFlush that creates or assigns something on every run?). Nothing was sent; the unit of work is as it was before the hooks ran.`,
    )
  },

  /**
   * `sequence`, the key sequence of `tables`, has `left` values left and the pool `pooled` of its ids,
   * fewer than the `needed` new ids of a flush. Nothing was sent.
   */
  sequenceExhausted(
    sequence: string,
    tables: readonly string[],
    needed: number,
    pooled: number,
    left: number,
  ): PipeflushError {
    const of = tables.length === 0 ? '' : ` (the key of ${tables.join(', ')})`
    return new PipeflushError(
      'SEQUENCE_EXHAUSTED',
      `Sequence ${sequence}${of} has ${left} values left, and ${pooled} more in this process's id pool, where the flush needs ${needed} new ids from it: the sequence does not cycle, and its MAXVALUE (its MINVALUE, counting down) comes first. Nothing was sent; the unit of work is unchanged. Raise its limit (ALTER SEQUENCE ... MAXVALUE, or a wider key type), or give the keys.`,
      { table: tables[0] },
    )
  },

  /** The id pool of a sequence holds fewer ids than a flush takes. */
  idPoolShort(sequence: string, free: number, needed: number): PipeflushError {
    return new PipeflushError(
      'STATEMENT_FAILED',
      `The id pool of ${sequence} has ${free} ids where ${needed} are needed.`,
    )
  },
}
