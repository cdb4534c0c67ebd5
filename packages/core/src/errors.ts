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
  /** The value at fault (`INVALID_VALUE`), which the message does not show. */
  readonly value?: unknown
  /** The server's DETAIL (e.g. `Key (email)=(...) already exists.`), which the message does not show. */
  readonly detail?: string | undefined
}

export class PipeflushError extends Error {
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
}

/** Is `e` a pipeflush error, optionally of the given code? */
export function isPipeflushError(e: unknown, code?: ErrorCode): e is PipeflushError {
  return e instanceof PipeflushError && (code === undefined || e.code === code)
}

/**
 * A server's error message without the values it quotes: data exceptions (SQLSTATE class 22, e.g.
 * `invalid input syntax for type integer: "4111..."`, `value "..." is out of range`) quote the value
 * at fault in double quotes, each shown as `"(a value)"`. Other messages name tables, columns and
 * constraints, and are kept. The server's DETAIL (where a unique violation shows the key) is never in
 * a message.
 *
 * @example
 * serverMessage('invalid input syntax for type integer: "4111"', '22P02') // 'invalid input syntax for type integer: "(a value)"'
 */
export function serverMessage(message: string, sqlState: string | undefined): string {
  return sqlState?.startsWith('22') ? message.replace(/"(?:[^"]|"")*"/g, '"(a value)"') : message
}

/**
 * `e` with what its message leaves out put back in it (the `errorValues` option of `connect`): the
 * value at fault, the server's DETAIL, and the server's own message where values were hidden.
 * Mutates and returns `e`; anything but a `PipeflushError` is returned as it is.
 *
 * @example
 * throw withValuesShown(e) // '... violated constraint "card_number_key": ... [detail: Key (number)=(4111...) already exists.]'
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

const FLUSH_LOG_ADVICE = 'Check the flush log (em.wasCommitted(flushId)) before retrying.'

/**
 * Named constructors of the errors raised in more than one place, so each condition has one code and
 * one wording.
 *
 * @example
 * throw errors.connectionLost(flushId, 'the connection to db:5432 ended: ECONNRESET')
 */
export const errors = {
  /** The connection failed before the COMMIT was sent: nothing was committed. */
  connectionLost(flushId: string, why: string, cause?: unknown): PipeflushError {
    return new PipeflushError(
      'CONNECTION_LOST',
      `The flush lost its connection before its COMMIT was sent (${why}). Nothing was committed; the unit of work is unchanged: flush again to retry.`,
      { flushId, cause },
    )
  },

  /** No connection could be had for the flush: nothing was sent. */
  noConnection(flushId: string, why: string, cause?: unknown): PipeflushError {
    return new PipeflushError(
      'CONNECTION_LOST',
      `The flush could not get a connection (${why}). Nothing was sent; the unit of work is unchanged: flush again to retry.`,
      { flushId, cause },
    )
  },

  /** The connection failed or stalled after the COMMIT was sent, before its answer. */
  commitOutcomeUnknown(flushId: string, why: string, cause?: unknown): PipeflushError {
    return new PipeflushError(
      'COMMIT_OUTCOME_UNKNOWN',
      `The flush's COMMIT was sent but its answer never came (${why}): flush ${flushId} may or may not be committed. ${FLUSH_LOG_ADVICE}`,
      { flushId, cause },
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

  /** The COMMIT answered ROLLBACK without a statement error to explain it. */
  rolledBack(flushId: string, command: string): PipeflushError {
    return new PipeflushError('ROLLED_BACK', `COMMIT answered ${command}: nothing was committed.`, {
      flushId,
    })
  },

  /**
   * A query outside a flush failed (a read, the schema, the flush log): `CONNECTION_LOST` when the
   * connection failed, else `STATEMENT_FAILED`. `failure` is the driver's error in pipeflush's shape.
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
    return new PipeflushError(
      'READ_ONLY_SERVER',
      `${what} was refused by a server that only reads (a standby, or default_transaction_read_only): ${failure.message}. Nothing was committed; point the pool at the primary.`,
      { ...details, sqlState: failure.sqlState, cause: failure.cause },
    )
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

  /** A `lock` read option that is not one of the row locks. */
  invalidLock(value: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `lock must be 'update' or 'share', not ${value}. Nothing was sent.`,
    )
  },

  /** A read did not settle within `flushTimeoutMs`. */
  queryTimeout(what: string, timeoutMs: number, where: string): PipeflushError {
    return new PipeflushError(
      'QUERY_TIMEOUT',
      `${what} did not settle within flushTimeoutMs (${timeoutMs} ms; ${where}).`,
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
    const why = cause instanceof Error ? cause.message : String(cause)
    const outcome =
      hook === 'afterCommit'
        ? 'The flush committed; this error does not undo it.'
        : 'Nothing was sent; the unit of work is as it was before the hooks ran.'
    return new PipeflushError('HOOK_FAILED', `The ${hook} hook threw: ${why}. ${outcome}`, { table, cause })
  },

  /**
   * A new row leaves out a key column filled by a sequence the role may not draw from (neither USAGE
   * nor UPDATE on it): the server would refuse its DEFAULT too. Nothing was sent.
   */
  sequenceDenied(table: string, column: string, sequence: string): PipeflushError {
    return new PipeflushError(
      'UNSUPPORTED_TABLE',
      `A new row of ${table} leaves out its key column "${column}", filled by sequence ${sequence}, which this role may not use (it needs USAGE or UPDATE on it): grant it (GRANT USAGE ON SEQUENCE ${sequence} TO ...), or give the key. Nothing was sent.`,
      { table, column },
    )
  },

  /**
   * A value refers to a new entity whose key the server fills (a DEFAULT read back by the flush): its
   * key is not known before the flush that inserts it answers. Nothing was sent.
   */
  serverKeyReferenced(table: string, column: string, target: string, targetColumn: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `${table}.${column} refers to a new ${target} entity whose key "${targetColumn}" the server fills (its DEFAULT, read back by the flush): its key is not known until that flush answers. Flush the ${target} first, or give its key. Nothing was sent.`,
      { table, column },
    )
  },

  /** A row to plan lacks a primary key column that nothing fills. Nothing was sent. */
  keyMissing(table: string, column: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `A row of "${table}" lacks its primary key column "${column}".`,
      {
        table,
        column,
      },
    )
  },

  /** A change the planner cannot write as given (`why`: what is wrong with it). Nothing was sent. */
  invalidChange(
    table: string,
    why: string,
    details: { readonly column?: string | undefined; readonly keys?: readonly unknown[] } = {},
  ): PipeflushError {
    return new PipeflushError('INVALID_STATE', `Table "${table}": ${why}`, { table, ...details })
  },

  /** Two new rows of one flush share a primary key (`shown`: the key as messages show it). */
  duplicateNewKey(table: string, shown: string, key: unknown): PipeflushError {
    return new PipeflushError('DUPLICATE_KEY', `Two new rows of "${table}" share the key ${shown}.`, {
      table,
      keys: [key],
    })
  },

  /** An upsert without conflict columns. */
  upsertWithoutConflict(table: string): PipeflushError {
    return new PipeflushError('INVALID_CONFIG', `Upsert into "${table}": name the conflict columns.`, {
      table,
    })
  },

  /** An upsert's row does not supply one of its conflict or update columns. */
  upsertColumnMissing(table: string, column: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `Upsert into "${table}": the row does not supply "${column}".`,
      {
        table,
        column,
      },
    )
  },

  /**
   * A reference in `table.column` to an entity upserted in this unit of work cannot be resolved by its
   * conflict key (`why`): a conflict value changed after the upsert, is null, or is not known yet.
   */
  upsertReferenceInvalid(table: string, column: string, target: string, why: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `"${table}"."${column}" refers to a row upserted into "${target}": ${why}`,
      { table, column },
    )
  },

  /** An upsert would update one of its conflict or key columns. */
  upsertUpdatesKey(table: string, column: string): PipeflushError {
    return new PipeflushError(
      'INVALID_CONFIG',
      `Upsert into "${table}": "${column}" is a conflict or key column and cannot be updated.`,
      { table, column },
    )
  },

  /**
   * New rows reference each other in a cycle of NOT NULL, non-deferred foreign keys (`links`: each
   * reference as `child -> parent (fk)`): no insert order exists. Nothing was sent.
   */
  unresolvableCycle(table: string, links: readonly string[], keys: readonly unknown[]): PipeflushError {
    return new PipeflushError(
      'UNRESOLVABLE_CYCLE',
      `New rows reference each other in a cycle of NOT NULL, non-deferred foreign keys: ${links.join(', ')}. ` +
        'No insert order exists; make one of these foreign keys nullable or DEFERRABLE INITIALLY DEFERRED.',
      { table, keys },
    )
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
   * A write to a view or materialized view (`kind`): pipeflush reads their rows but never writes them.
   * `what` says what was attempted (`create`, `an assignment to "name"`, ...).
   */
  readOnly(table: string, kind: string, what: string, column?: string): PipeflushError {
    return new PipeflushError(
      'UNSUPPORTED_TABLE',
      `${table} is a ${kind}: pipeflush reads its rows (find, load) but does not write them (${what}). Write the tables it reads instead.`,
      { table, column },
    )
  },

  /** `load(table, key)` of a view without a key (views have none in the catalog). */
  noKeyToLoad(table: string, kind: string): PipeflushError {
    return new PipeflushError(
      'UNSUPPORTED_TABLE',
      `${table} is a ${kind} without a key: find its rows with find(), not load().`,
      { table },
    )
  },

  /** A row of a view given as the value of `table.column`: it cannot stand for a key. */
  viewRowAsKey(table: string, column: string, view: string, kind: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `${table}.${column}: a row of ${kind} ${view} cannot stand for a key; assign the value itself.`,
      { table, column },
    )
  },

  /** A relation named in a graph load's `with` that `table` does not have. Nothing was sent. */
  unknownRelation(table: string, name: string, known: readonly string[]): PipeflushError {
    const list = known.length > 0 ? known.join(', ') : 'none: no foreign key involves it'
    return new PipeflushError(
      'UNKNOWN_RELATION',
      `${table} has no relation "${name}" (its relations: ${list}). Nothing was sent.`,
      { table },
    )
  },

  /** A `with` tree holding something else than `true` or an object of relations. Nothing was sent. */
  invalidWith(path: string, value: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `${path} must be true or an object of relations, not ${value}. Nothing was sent.`,
    )
  },

  /**
   * A relation navigated on an entity whose related rows this unit of work did not load (`load`,
   * `find` or `populate` with `with`): pipeflush never reads behind the application's back.
   */
  notLoaded(table: string, relation: string, key: string | null): PipeflushError {
    return new PipeflushError(
      'NOT_LOADED',
      `${table}${key === null ? '' : ` ${key}`}.${relation} was not loaded: load it with { with: { ${relation}: true } } or em.populate(entities, { ${relation}: true }).`,
      { table },
    )
  },

  /**
   * `load` found no row of `table` with key `key` (`shown`: how the message shows it; `removed`: this
   * unit of work removed it).
   */
  notFound(table: string, key: unknown, shown: string, removed = false): PipeflushError {
    const message = removed
      ? `${table} ${shown} is removed in this unit of work.`
      : `No ${table} with key ${shown}.`
    return new PipeflushError('NOT_FOUND', message, { table, keys: [key] })
  },

  /** `populate` of an entity that is not stored (new, removed or detached): nothing to read for it. */
  notPopulatable(table: string, status: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `populate: a ${status} ${table} entity has no stored relations to load (only managed entities do).`,
      { table },
    )
  },

  /**
   * A connection could not be opened, for a reason of its own (`code`: `LOGIN_FAILED`,
   * `DATABASE_NOT_FOUND`, `TLS_FAILED`, `HOST_UNREACHABLE`); `what` says what needed it. The
   * server's SQLSTATE is on the error; a password never is.
   */
  cannotConnect(
    code: 'LOGIN_FAILED' | 'DATABASE_NOT_FOUND' | 'TLS_FAILED' | 'HOST_UNREACHABLE',
    what: string,
    why: string,
    details: PipeflushErrorDetails = {},
  ): PipeflushError {
    const advice = {
      LOGIN_FAILED: 'check the user and password of the connection',
      DATABASE_NOT_FOUND: 'check the database name of the connection',
      TLS_FAILED: 'check the TLS settings (ssl option, certificates, host name)',
      HOST_UNREACHABLE: 'check the host and port, and that the server is up and reachable',
    }[code]
    return new PipeflushError(
      code,
      `${what} could not connect (${why}): ${advice}. Nothing was sent.`,
      details,
    )
  },

  /** An argument that must be an object of named values (`shown`: the value as messages show it). */
  notAnObject(
    code: ErrorCode,
    what: string,
    shown: string,
    details: PipeflushErrorDetails = {},
  ): PipeflushError {
    return new PipeflushError(code, `${what} must be an object of named values, not ${shown}.`, details)
  },

  /** An argument that must be an array of column names. */
  notColumnNames(
    code: ErrorCode,
    what: string,
    shown: string,
    details: PipeflushErrorDetails = {},
  ): PipeflushError {
    return new PipeflushError(code, `${what} must be an array of column names, not ${shown}.`, details)
  },

  /** `connect` given something that is no client of a supported driver. */
  notAClient(client: string, advice: string): PipeflushError {
    return new PipeflushError('INVALID_CONFIG', `${client} is not a client pipeflush can use. ${advice}`)
  },

  /** A flush started while another of the same entity manager runs. */
  flushRunning(): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      'A flush of this entity manager is already running; await it first.',
    )
  },

  /** The `flushLog` option is not a table name. */
  flushLogName(shown: string): PipeflushError {
    return new PipeflushError('INVALID_CONFIG', `flushLog must be a table name, not ${shown}.`)
  },

  /** `wasCommitted` given something else than a uuid. */
  flushIdNotUuid(shown: string): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `A flush id is a uuid, not ${shown}.`)
  },

  /** The flush log table is missing or not as pipeflush needs it (`ddl`: how to create it). */
  flushLogTable(sqlName: string, problem: string, ddl: string): PipeflushError {
    return new PipeflushError(
      'INVALID_CONFIG',
      `The flush log table ${sqlName} ${problem}. Create it with: ${ddl};`,
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
      `Optimistic lock failed on ${table}: ${kind} of row(s) ${shown} matched no row (changed or deleted by another transaction). Nothing was committed.`,
      { ...details, table, keys },
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

  /** The id pool of a sequence holds fewer ids than a flush takes. */
  idPoolShort(sequence: string, free: number, needed: number): PipeflushError {
    return new PipeflushError(
      'STATEMENT_FAILED',
      `The id pool of ${sequence} has ${free} ids where ${needed} are needed.`,
    )
  },

  /** A find condition names a column the table lacks. */
  unknownFindColumn(table: string, column: string): PipeflushError {
    return new PipeflushError('UNKNOWN_COLUMN', `${table} has no column "${column}" (in a find condition).`, {
      table,
      column,
    })
  },

  /** A column of type enum defined without its sqlType. */
  enumWithoutSqlType(column: string): PipeflushError {
    return new PipeflushError('INVALID_CONFIG', `Enum column "${column}" needs its sqlType.`, { column })
  },

  /** A column of another type defined without its castType. */
  otherWithoutCastType(column: string): PipeflushError {
    return new PipeflushError('INVALID_CONFIG', `Column "${column}" of another type needs its castType.`, {
      column,
    })
  },

  /** A table of a schema definition that cannot be (`why`). */
  tableConfig(table: string, why: string, column?: string): PipeflushError {
    return new PipeflushError('INVALID_CONFIG', `Table "${table}": ${why}`, { table, column })
  },

  /** A table not in the schema (`shown`: as messages show it; `known`: the tables there are). */
  unknownTable(shown: string, known: string, table: string | undefined): PipeflushError {
    return new PipeflushError('UNKNOWN_TABLE', `Unknown table ${shown} (known: ${known}).`, { table })
  },

  /** A table without a primary key, whose rows cannot be tracked. */
  noPrimaryKey(table: string): PipeflushError {
    return new PipeflushError(
      'UNSUPPORTED_TABLE',
      `Table ${table} has no primary key: pipeflush cannot track its rows.`,
      { table },
    )
  },

  /** A column not in the table (`shown`: the name as messages show it; `columns`: the table's). */
  unknownColumn(table: string, shown: string, columns: string, column: string | undefined): PipeflushError {
    return new PipeflushError('UNKNOWN_COLUMN', `${table} has no column ${shown} (columns: ${columns}).`, {
      table,
      column,
    })
  },

  /** A write to a generated column. */
  generatedColumn(table: string, column: string): PipeflushError {
    return new PipeflushError(
      'UNSUPPORTED_TABLE',
      `${table}.${column} is a generated column: it cannot be written.`,
      {
        table,
        column,
      },
    )
  },

  /** An update of a GENERATED ALWAYS identity column. */
  identityAlways(table: string, column: string): PipeflushError {
    return new PipeflushError(
      'UNSUPPORTED_TABLE',
      `${table}.${column} is GENERATED ALWAYS AS IDENTITY: it cannot be updated.`,
      { table, column },
    )
  },

  /** Reading the schema from the catalog failed (`cause`: the driver's error). */
  schemaReadFailed(cause: unknown): PipeflushError {
    return new PipeflushError(
      'SCHEMA_READ_FAILED',
      `Reading the schema from pg_catalog failed: ${String((cause as Error)?.message ?? cause)}`,
      { cause: (cause as { cause?: unknown })?.cause ?? cause },
    )
  },

  /** The session's DateStyle is not ISO. */
  dateStyleNotIso(dateStyle: string): PipeflushError {
    return new PipeflushError(
      'INVALID_CONFIG',
      `pipeflush needs DateStyle ISO (the session has "${dateStyle}"): connect with postgres(url, { connection: { DateStyle: 'ISO, MDY' } }).`,
    )
  },

  /** The session's extra_float_digits is below 1. */
  floatDigitsTooFew(extraFloatDigits: number): PipeflushError {
    return new PipeflushError(
      'INVALID_CONFIG',
      `pipeflush needs extra_float_digits >= 1 for exact floats (the session has ${extraFloatDigits}): connect with postgres(url, { connection: { extra_float_digits: 1 } }).`,
    )
  },

  /** `table.column` refers to an entity of another entity manager. */
  entityOfAnotherManager(table: string, column: string, target: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `${table}.${column} refers to a ${target} entity of another entity manager.`,
      { table, column },
    )
  },

  /** `table.column` refers to an entity whose status forbids it (removed...). */
  refersToEntityIn(table: string, column: string, target: string, status: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `${table}.${column} refers to a ${target} entity that is ${status}.`,
      {
        table,
        column,
      },
    )
  },

  /** An entity of `target` assigned to a column that references other tables (`targets`). */
  wrongReferenceTarget(table: string, column: string, targets: string, target: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `${table}.${column} references ${targets}, not ${target}: a ${target} entity cannot stand for it.`,
      { table, column },
    )
  },

  /** An entity with a composite key assigned to one column. */
  entityForCompositeColumn(table: string, column: string, target: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `${table}.${column}: a ${target} entity cannot stand for one column (composite key); assign the key values.`,
      { table, column },
    )
  },

  /** `Object.freeze` or `seal` of an entity. */
  entityFrozen(table: string): PipeflushError {
    return new PipeflushError('INVALID_STATE', `A ${table} entity cannot be frozen or sealed.`, { table })
  },

  /** An assignment to an entity whose status forbids it. */
  assignToEntityIn(table: string, column: string, status: string): PipeflushError {
    return new PipeflushError('INVALID_STATE', `Cannot assign ${table}.${column}: the entity is ${status}.`, {
      table,
      column,
    })
  },

  /** A change of a stored row's primary key. */
  storedKeyChanged(table: string, column: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `Cannot change primary key column ${table}.${column} of a stored row; remove it and create a new one.`,
      { table, column },
    )
  },

  /** An assignment to the version column. */
  versionAssigned(table: string, column: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `${table}.${column} is the version column: pipeflush increments it on every update.`,
      { table, column },
    )
  },

  /** `delete entity.prop`. */
  propertyDeleted(table: string, prop: string): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      `Cannot delete property ${prop} of a ${table} entity; assign null instead.`,
      { table },
    )
  },

  /** `Object.defineProperty` on an entity. */
  propertyDefined(table: string, prop: string): PipeflushError {
    return new PipeflushError('INVALID_STATE', `Cannot define property ${prop} on a ${table} entity.`, {
      table,
    })
  },

  /** A key of a single-column key that is no key (`shown`: the value given). */
  keyNeeded(table: string, column: string, shown: string): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `A key of ${table} is needed, not ${shown}.`, {
      table,
      column,
    })
  },

  /** A single value given for a composite key. */
  compositeKeyNeeded(table: string, keyColumns: readonly string[], shown: string): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `${table} has a composite primary key (${keyColumns.join(', ')}): pass an object of them, not ${shown}.`,
      { table },
    )
  },

  /** A key object lacking one of its columns. */
  keyColumnLacking(table: string, column: string): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `The key of ${table} lacks its column "${column}".`, {
      table,
      column,
    })
  },

  /** A value no column can store, met when taking a snapshot. */
  unstorableValue(table: string, column: string, cause: unknown): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `${table}.${column} holds a value no column can store (${String((cause as Error)?.message ?? cause)}).`,
      { table, column, cause },
    )
  },

  /** `upsert(table)` with an empty conflict list. */
  upsertConflictUnnamed(table: string): PipeflushError {
    return new PipeflushError('INVALID_CONFIG', `upsert(${table}): name the conflict columns.`, { table })
  },

  /** `merge(table)` of a row lacking a column. */
  mergeColumnMissing(table: string, column: string): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `merge(${table}): the row lacks column "${column}".`, {
      table,
      column,
    })
  },

  /** A stored row given without its whole primary key. */
  storedKeyMissing(table: string, keyColumns: readonly string[]): PipeflushError {
    return new PipeflushError(
      'INVALID_VALUE',
      `A stored ${table} row needs its primary key (${keyColumns.join(', ')}).`,
      { table },
    )
  },

  /** A row whose key is already managed by the entity manager (`shown`: the key as messages show it). */
  alreadyManaged(table: string, shown: string, key: unknown): PipeflushError {
    return new PipeflushError(
      'DUPLICATE_KEY',
      `A ${table} with key ${shown} is already managed by this entity manager.`,
      { table, keys: [key] },
    )
  },

  /** An entity of another entity manager, or no entity. */
  notThisManager(): PipeflushError {
    return new PipeflushError(
      'INVALID_STATE',
      'Not an entity of this entity manager (create, find or load it with this one).',
    )
  },

  /** An identifier that is not a non-empty string. */
  identifierNotString(shown: string): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `an identifier must be a non-empty string, not ${shown}`)
  },

  /** An identifier PostgreSQL cannot take (`why`). */
  invalidIdentifier(shown: string, why: string): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `the identifier ${shown} ${why}`)
  },

  /** A text[] parameter PostgreSQL cannot take (`why`). */
  invalidTextArrayParam(why: string): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `a text[] parameter ${why}`)
  },

  /** A SQL string literal PostgreSQL cannot take (`why`). */
  invalidSqlLiteral(why: string): PipeflushError {
    return new PipeflushError('INVALID_VALUE', `a SQL string literal ${why}`)
  },

  /** A value that cannot be stored exactly in its column (`message` names where). */
  invalidValue(message: string, details: PipeflushErrorDetails = {}): PipeflushError {
    return new PipeflushError('INVALID_VALUE', message, details)
  },

  /** A configuration value out of range or of the wrong kind. */
  invalidConfig(message: string, details: PipeflushErrorDetails = {}): PipeflushError {
    return new PipeflushError('INVALID_CONFIG', message, details)
  },
} as const
