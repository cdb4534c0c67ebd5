import type { DriverError, StatementResult } from '../drivers/driver.ts'
import { isDriverError } from '../drivers/driver-errors.ts'
import { Interrupted } from '../drivers/guarded-session.ts'
import { errors, PipeflushError, serverMessage } from '../errors.ts'
import type { SchemaModel, TableModel } from '../model/model.ts'
import { parseMissingLookup } from '../plan/statements/lookup-check.ts'
import { parseStaleError, type StaleRows } from '../plan/statements/stale-check.ts'
import type { PlannedStatement } from '../plan/types.ts'
import { foreignKeyNamed } from '../schema/checks.ts'
import { describeKeyText } from '../values/location.ts'
import { keysAtFault } from './failed-statement.ts'
import type { FlushSession } from './flush-session.ts'

/** SQLSTATE of a write sent to a server that only reads. */
const READ_ONLY = '25006'

/** SQLSTATE of a statement sent after an earlier one failed in the same transaction. */
const IN_FAILED_TRANSACTION = '25P02'

/**
 * The keys of the rows a stale update or delete did not match, as the application gave them (the
 * statement's `keys`) where the statement is known: the row whose key parameters are the texts the
 * server reported. Else (and for a text no row sent) the texts themselves.
 */
function staleKeys(stale: StaleRows, statement: PlannedStatement | undefined): unknown[] {
  if (statement === undefined || statement.kind === 'insert') return stale.keys
  return stale.keyTuples.map((tuple, k) => {
    for (let r = 0; r < statement.rowCount; r++)
      if (tuple.every((text, i) => statement.params[i]?.[r] === text)) return statement.keys[r]
    return stale.keys[k]
  })
}

/**
 * The {@link PipeflushError} of a statement the server rejected: `OPTIMISTIC_LOCK` (the planner's
 * row-count check failed: a row changed or gone), `READ_ONLY_SERVER` (a standby, or a server in
 * read-only mode), `CONSTRAINT_VIOLATION` (with the constraint's name), or `STATEMENT_FAILED`. The driver's error is the cause.
 */
export function statementError(
  e: DriverError,
  statement: PlannedStatement | undefined,
  flushId: string,
  schema?: SchemaModel,
): PipeflushError {
  const stale = parseStaleError({ code: e.sqlState, message: e.message })
  if (stale && stale.matched > stale.expected)
    return errors.keyMatchedSeveralRows(
      stale.table,
      statement?.kind ?? 'write',
      stale.expected,
      stale.matched,
      { flushId, cause: e.cause },
    )
  if (stale) {
    return errors.optimisticLock(
      stale.table,
      statement?.kind ?? 'write',
      stale.keys.map(describeKeyText).join(', '),
      staleKeys(stale, statement),
      // No SQLSTATE: the server's (22P02) is the check's way of failing the statement, not the reason.
      { flushId, cause: e.cause },
    )
  }
  const missing = parseMissingLookup(e.message)
  if (missing) {
    return errors.upsertedRowNotFound(missing.table, missing.column, missing.target, {
      sqlState: e.sqlState,
      keys: statement?.keys,
      flushId,
      cause: e.cause,
    })
  }
  const table = statement?.table ?? e.table
  const what = statement ? `${statement.kind} on ${statement.table}` : 'A statement'
  if (e.sqlState === READ_ONLY) return errors.readOnlyServer(what, e, { table, flushId })
  if (e.sqlState?.startsWith('23')) {
    // The server's DETAIL (`Key (number)=(4111...) already exists.`) stays on the error, out of the message.
    return errors.constraintViolation(what, e.message, {
      table,
      constraint: e.constraint,
      sqlState: e.sqlState,
      // The rows the detail names (a duplicate key, a missing reference) or holding the NULL refused.
      keys: statement === undefined ? undefined : keysAtFault(statement, e, schema),
      column: e.column,
      flushId,
      detail: e.detail,
      cause: e.cause,
    })
  }
  return errors.statementFailed(
    what,
    `${serverMessage(e.message, e.sqlState)}${readBackHint(e, statement)}${conflictHint(e, statement)}`,
    {
      table,
      // A column the server named (a trigger's `RAISE ... USING COLUMN`, a type's input refused).
      column: e.column,
      sqlState: e.sqlState,
      keys: statement?.keys,
      flushId,
      detail: e.detail,
      cause: e.cause,
    },
  )
}

/**
 * Why an insert that reads back what the server fills may be refused where the same insert without
 * `returning` is not: the role must see the new row (SELECT privilege, and the table's SELECT
 * policies under row-level security). '' for any other error.
 */
function readBackHint(e: DriverError, statement: PlannedStatement | undefined): string {
  if (e.sqlState !== '42501' || statement?.kind !== 'insert' || statement.returning === undefined) return ''
  return ' (where the role may insert the row but not see it: the insert reads back the values the server fills, which needs the new row to pass the SELECT privilege and policies too; turn serverValues off for the table)'
}

/**
 * Why an upsert's ON CONFLICT matched nothing (42P10): its conflict columns must be those of the
 * table's primary key or of one of its unique constraints or indexes, a unique index without WHERE
 * (a partial index is never matched by a list of columns alone). '' for any other error.
 */
function conflictHint(e: DriverError, statement: PlannedStatement | undefined): string {
  if (e.sqlState !== '42P10' || statement?.upsert === undefined) return ''
  const columns = statement.upsert.conflict.join(', ')
  return ` (the upsert's conflict columns (${columns}) must be exactly those of the table's primary key or of a unique constraint or index; a partial unique index, with a WHERE, cannot be the target)`
}

/**
 * `e` with the table and column the server named (by their database names, when the flush could not
 * tell which statement failed: one message holds them all) given as the schema names them: the
 * table's key, and the column's name when its table calls it otherwise (see `ColumnModel.dbName`):
 * `authorId` for the server's `author_id`. Mutates and returns `e`; anything else is returned as it is.
 *
 * An error names tables and columns as entities, `where` and the other errors do.
 */
export function columnNamedByApi(e: unknown, schema: SchemaModel): unknown {
  if (!(e instanceof PipeflushError) || e.table === undefined) return e
  let table = schema.tables.get(e.table)
  if (table === undefined) {
    const named = [...schema.tables.values()].filter((t) => t.name === e.table)
    if (named.length !== 1) return e
    table = named[0]!
    ;(e as { table: string | undefined }).table = table.key
  }
  const column = e.column === undefined ? undefined : table.columns.find((c) => c.dbName === e.column)
  if (column !== undefined) (e as { column: string | undefined }).column = column.name
  // The server names no column for a foreign key or unique violation: its constraint's, when the
  // schema knows it by that name; else (the primary key, a unique index, a constraint the database
  // names otherwise than the schema's definitions) the one its detail names.
  if (e.column === undefined && e.code === 'CONSTRAINT_VIOLATION' && e.constraint !== undefined) {
    const only =
      constraintColumns(table, e.constraint) ??
      (KEY_CONFLICT.has(e.sqlState ?? '') || missingReference(e) ? detailColumns(table, e.detail) : undefined)
    if (only?.length === 1) (e as { column: string | undefined }).column = only[0]
  }
  return e
}

/** The columns (API names) of `table`'s foreign key or unique constraint `name`, if it has one so named. */
function constraintColumns(table: TableModel, name: string): readonly string[] | undefined {
  return foreignKeyNamed(table, name)?.columns ?? table.uniques.find((u) => u.name === name)?.columns
}

/**
 * Whether `e` is a foreign key violation of a row referencing one that does not exist (`Key
 * (author_id)=(9) is not present in table "author".`): its detail names the referencing columns, of
 * the table the error names. A row still referenced (`Key (id)=(5) is still referenced from table
 * "book".`) names the referenced table's columns instead, not the named table's.
 */
function missingReference(e: PipeflushError): boolean {
  return e.sqlState === '23503' && e.detail?.includes(' is not present in table ') === true
}

/** SQLSTATEs of a unique and an exclusion violation: their detail names the key's columns. */
const KEY_CONFLICT: ReadonlySet<string> = new Set(['23505', '23P01'])

/**
 * The columns (API names) of `table` the detail of a unique or exclusion violation names, `Key (a,
 * "B c")=(...) already exists.`, each as the server prints an identifier (quoted when it must be);
 * undefined when the detail is not of that form (left out for a role that may not read the row) or
 * names an expression.
 */
function detailColumns(table: TableModel, detail: string | undefined): string[] | undefined {
  if (detail === undefined || !detail.startsWith('Key (')) return undefined
  const names: string[] = []
  let at = 5
  for (;;) {
    let name: string
    if (detail[at] === '"') {
      name = ''
      at++
      for (;;) {
        const quote = detail.indexOf('"', at)
        if (quote < 0) return undefined
        name += detail.slice(at, quote)
        at = quote + 1
        if (detail[at] !== '"') break
        name += '"'
        at++
      }
    } else {
      const end = detail.slice(at).search(/[,)]/)
      if (end < 0) return undefined
      name = detail.slice(at, at + end)
      at += end
    }
    const column = table.columns.find((c) => (c.dbName ?? c.name) === name)
    if (column === undefined) return undefined
    names.push(column.name)
    if (detail.startsWith(')=(', at)) return names
    if (!detail.startsWith(', ', at)) return undefined
    at += 2
  }
}

/**
 * The error that explains a pipelined transaction that failed: the first statement rejected by the
 * server for itself (not with 25P02 because an earlier one failed), else the first rejection.
 */
export function firstRejection(
  results: readonly PromiseSettledResult<StatementResult>[],
  statements: readonly (PlannedStatement | undefined)[],
  flushId: string,
  schema?: SchemaModel,
): PipeflushError | undefined {
  let fallback: DriverError | undefined
  let fallbackAt = -1
  for (let i = 0; i < results.length; i++) {
    const r = results[i]
    if (r?.status !== 'rejected') continue
    const e = r.reason as DriverError
    if (e.kind === 'server' && e.sqlState !== IN_FAILED_TRANSACTION)
      return statementError(e, statements[i], flushId, schema)
    if (fallback === undefined) {
      fallback = e
      fallbackAt = i
    }
  }
  return fallback && fallback.kind === 'server'
    ? statementError(fallback, statements[fallbackAt], flushId, schema)
    : undefined
}

/** Whether some statement of `results` got an error answer from the server. */
export function someServerRejection(results: readonly PromiseSettledResult<StatementResult>[]): boolean {
  return results.some((r) => r.status === 'rejected' && (r.reason as DriverError).kind === 'server')
}

/**
 * SQLSTATEs of a session the server ended while it waited for input: idle_in_transaction_session_timeout
 * (25P03) and idle_session_timeout (57P05).
 */
const ENDED_IDLE: ReadonlySet<string> = new Set(['25P03', '57P05'])

/**
 * The error a flush fails with when its connection ended, it timed out, or the driver refused: after
 * the COMMIT was sent and before any error answer from the server, the outcome is unknown; before it,
 * or when the driver refused the message before writing any of it (`DriverError.unwritten`), or the
 * server ended the session for idling, nothing was committed.
 */
export function interruptionError(
  e: unknown,
  fs: FlushSession,
  flushId: string,
  timeoutMs: number,
): PipeflushError {
  if (e instanceof PipeflushError) return e
  const unknownOutcome = fs.commitSent && !fs.serverRejected
  if (e instanceof Interrupted && e.reason === 'timeout') {
    return unknownOutcome
      ? errors.commitOutcomeUnknown(
          flushId,
          `no answer within flushTimeoutMs (${timeoutMs} ms); the connection was terminated`,
        )
      : errors.flushTimeout(flushId, timeoutMs, 'the connection was terminated')
  }
  // Neither the connection nor the server: an exception of code the flush ran, given as its cause.
  if (!(e instanceof Interrupted) && !isDriverError(e)) {
    return unknownOutcome
      ? errors.commitOutcomeUnknown(flushId, String(e), e)
      : errors.threwInFlush(flushId, e)
  }
  const driverError = e instanceof Interrupted ? e.driverError : e
  const why = driverError?.message ?? 'the connection ended'
  if (driverError?.kind === 'server') return statementError(driverError, undefined, flushId)
  // A refusal once the COMMIT went out refused nothing the server got: its outcome is not known.
  if (driverError?.kind === 'client' && !unknownOutcome) {
    return errors.driverRefused(flushId, why, driverError.cause)
  }
  // A message refused unwritten (its socket had ended) leaves nothing for the server to commit: the
  // COMMIT in it, or after it, was never sent. Nor does a session the server ended for idling (in a
  // transaction, as a locking read's waiting for its flush, or not): it was waiting for input, so
  // nothing that arrived after ran.
  const notRun = driverError?.unwritten === true || ENDED_IDLE.has(driverError?.sqlState ?? '')
  // The server's SQLSTATE, when it ended the session with one (57P01 a backend terminated).
  const sqlState = driverError?.sqlState
  return unknownOutcome && !notRun
    ? errors.commitOutcomeUnknown(flushId, why, driverError?.cause, sqlState)
    : errors.connectionLost(flushId, why, driverError?.cause, sqlState)
}
