import type { DriverError } from './driver.ts'

/**
 * Error codes that say a connection is gone or was never made, as postgres.js, node-postgres and Node
 * report them.
 */
const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOTCONN',
  'EPIPE',
  'ETIMEDOUT',
  'ERR_SOCKET_CLOSED',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'SERVER_NOT_WRITABLE',
  ...unreadableCodes(),
])

/**
 * A driver reading a message past the bytes it holds: the stream is not the server's messages (a
 * pooler wrote its error behind a half-sent row when its server link broke), and nothing more on it
 * can be read.
 */
function unreadableCodes(): string[] {
  return ['ERR_OUT_OF_RANGE', 'ERR_BUFFER_OUT_OF_BOUNDS']
}

/** Whether `e` says its connection's stream could not be read (see {@link unreadableCodes}): it is closed. */
export function isUnreadableStream(e: DriverError | undefined): boolean {
  return e?.code !== undefined && unreadableCodes().includes(e.code)
}

/** Is `code` a connection failure code (see {@link CONNECTION_CODES})? */
export function isConnectionCode(code: unknown): boolean {
  return typeof code === 'string' && CONNECTION_CODES.has(code)
}

/**
 * SQLSTATEs after which the server ends the session: connection exceptions (class 08), shutdowns and
 * session timeouts (57P01-57P05), idle-in-transaction timeout (25P03).
 *
 * Not every 08P01 (protocol_violation) ends it: the server answers a Bind with the wrong number of
 * parameters with an ERROR, and the session goes on. It is kept here all the same: the severity does
 * not tell them apart safely (pg gives the localized one, and a pooler may send 08P01 as an ERROR and
 * close the connection right after), and a connection taken for lost when it was not costs a new one,
 * where one taken for alive when it was lost would report a flush failed by a statement when its
 * COMMIT's outcome is unknown. pipeflush's own statements always carry their parameters, and an
 * application's select is checked before it is sent (see `read/own-sql.ts`).
 */
export function isSessionEndingState(sqlState: string): boolean {
  return sqlState.startsWith('08') || /^57P0[1-5]$/.test(sqlState) || sqlState === '25P03'
}

/**
 * The SQLSTATE of an error the server sent, or undefined for anything else. Both drivers copy the
 * server's fields onto the error: a `severity` and a five-character `code` (Node's own codes, such
 * as `EPIPE`, can look like one, but come without a severity).
 */
export function serverSqlState(error: unknown): string | undefined {
  const code = stringField(error, 'code')
  const severity = stringField(error, 'severity') ?? stringField(error, 'severity_local')
  return severity !== undefined && code !== undefined && /^[0-9A-Z]{5}$/.test(code) ? code : undefined
}

/** A string field of an error object, or undefined. */
export function stringField(error: unknown, name: string): string | undefined {
  const value = (error as Record<string, unknown> | null | undefined)?.[name]
  return typeof value === 'string' ? value : undefined
}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message
  const message = stringField(error, 'message')
  return message ?? String(error)
}

/** The names a driver gives the server's error fields (postgres.js: `constraint_name`, pg: `constraint`). */
export interface ServerErrorFields {
  readonly constraint: string
  readonly schema: string
  readonly table: string
  readonly column: string
}

/**
 * A driver's error in pipeflush's shape: a server error (its SQLSTATE and fields, `connection` when
 * the server ends the session), a connection error (`isConnection` tells the driver's own), or a
 * client error (the driver refused before sending).
 *
 * Above the adapters, errors are told apart by kind and SQLSTATE, not by each driver's classes.
 */
export function toDriverError(
  error: unknown,
  fields: ServerErrorFields,
  isConnection: (code: string | undefined, message: string) => boolean,
): DriverError {
  if (isDriverError(error)) return error
  const code = stringField(error, 'code')
  const sqlState = serverSqlState(error)
  const message = messageOf(error)
  if (sqlState !== undefined) {
    const position = Number(stringField(error, 'position'))
    return {
      kind: isSessionEndingState(sqlState) ? 'connection' : 'server',
      message,
      sqlState,
      constraint: stringField(error, fields.constraint),
      schema: stringField(error, fields.schema),
      table: stringField(error, fields.table),
      column: stringField(error, fields.column),
      detail: stringField(error, 'detail'),
      position: Number.isFinite(position) && position > 0 ? position : undefined,
      where: stringField(error, 'where'),
      routine: stringField(error, 'routine'),
      completed: completedOf(error),
      cause: error,
    }
  }
  const connection = isConnectionCode(code) || isConnection(code, message)
  const driverError: DriverError = { kind: connection ? 'connection' : 'client', message, code, cause: error }
  return (error as { [UNWRITTEN]?: unknown } | null)?.[UNWRITTEN] === true
    ? { ...driverError, unwritten: true }
    : driverError
}

/**
 * Set (`true`) on an error a driver's query was rejected with before any byte of it was written: its
 * {@link DriverError} says `unwritten`.
 */
export const UNWRITTEN: unique symbol = Symbol('pipeflush: the query was not written')

/**
 * Set on a server's error answering a simple-protocol message: how many of its statements the server
 * completed before the error (its {@link DriverError} says `completed`).
 */
export const COMPLETED: unique symbol = Symbol('pipeflush: statements completed before the error')

function completedOf(error: unknown): number | undefined {
  const completed = (error as { [COMPLETED]?: unknown } | null)?.[COMPLETED]
  return typeof completed === 'number' ? completed : undefined
}

/** Is `e` already a {@link DriverError}? */
export function isDriverError(e: unknown): e is DriverError {
  const k = (e as DriverError | null)?.kind
  return (k === 'connection' || k === 'server' || k === 'client') && 'cause' in (e as object)
}

/** The connection to `address` ended, for `reason`. */
export function closedError(address: string, reason: string, cause?: unknown): DriverError {
  return {
    kind: 'connection',
    code: 'CONNECTION_CLOSED',
    message: `the connection to ${address} ended: ${reason}`,
    cause: cause ?? new Error(reason),
  }
}

/**
 * The server at `address` reported at its startup that it does not take writes (`why`), and the
 * client's `target_session_attrs` (`attrs`) asks for one that does: the connection is closed before
 * it serves anything (code `SERVER_NOT_WRITABLE`, a connection failure). A real `Error`, since it is
 * what the socket is destroyed with.
 */
export function notWritableError(address: string, attrs: string, why: string): Error & { code: string } {
  return Object.assign(
    new Error(`the server at ${address} ${why}, and target_session_attrs=${attrs} asks for a primary`),
    { code: 'SERVER_NOT_WRITABLE' },
  )
}

/**
 * No connection was free, or finished opening, before a reservation's deadline (code `DEADLINE`): a
 * pool whose connections are all busy, or a server that accepts connections and never answers.
 */
export function deadlineError(address: string): DriverError {
  const message = `no connection to ${address} was free or finished opening before the deadline`
  return { kind: 'connection', code: 'DEADLINE', message, cause: new Error(message) }
}

/**
 * The application's pool gave up its own wait for a free connection (code `POOL_TIMEOUT`): every
 * connection stayed in use for the pool's `connectionTimeoutMillis` (`ms`). No connection was tried:
 * the server is not at fault.
 */
export function poolWaitError(ms: number | undefined, cause: unknown): DriverError {
  const limit = ms === undefined ? '' : ` (${ms} ms)`
  const message = `every connection of the pool stayed in use for its connectionTimeoutMillis${limit}`
  return { kind: 'connection', code: 'POOL_TIMEOUT', message, cause }
}

/**
 * SQLSTATEs of a startup setting refused (`unrecognized configuration parameter`, `invalid value for
 * parameter`, `parameter cannot be changed now`), which a connection that could not open reports.
 */
const STARTUP_SETTING_REFUSED: ReadonlySet<string> = new Set(['42704', '22023', '55P02'])

/** Codes of Node's TLS and certificate failures (a prefix or the whole code). */
const TLS_CODES =
  /^(ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET|VERIFY)_)/
/** Codes of a server that cannot be reached. */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ETIMEDOUT',
])

/** Whether `e` is a connect to a unix socket whose file is not there (ENOENT from `connect`). */
function noSocketFile(e: unknown): boolean {
  return stringField(e, 'code') === 'ENOENT' && stringField(e, 'syscall') === 'connect'
}

/** SQLSTATE protocol_violation: what PgBouncer answers a refused login or an unknown database with. */
const PROTOCOL_VIOLATION = '08P01'
/** PgBouncer's words for a refused login ("password authentication failed", "SASL authentication failed", "no such user"). */
const BOUNCER_LOGIN_REFUSED = /\b(password|SASL) authentication failed\b|\bno such user\b/i
/**
 * PgBouncer's words for a database it does not serve ("no such database: shop"), or the server's it
 * passes on for one the server does not have (`database "shop" does not exist`).
 */
const BOUNCER_NO_DATABASE = /\bno such database\b|\bdatabase ".*" does not exist\b/i
/**
 * PgBouncer's words for a startup parameter it does not pass on ("unsupported startup parameter:
 * options"), one its `ignore_startup_parameters` does not list: a setting to fix, never a retry.
 */
const BOUNCER_PARAMETER_REFUSED = /\bunsupported startup parameter\b/i

/**
 * node-postgres's words for a password request it cannot answer, the connection having no password
 * (or an empty one, or a `password` function giving no string): thrown by the client, no SQLSTATE.
 */
const NO_PASSWORD = /\bclient password must be a (non-empty )?string\b|^Password must be a string\b/

/** Codes of a connection the network dropped (reset, broken pipe, aborted). */
const DROPPED_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED'])

/**
 * Why a connection could not be opened, when the reason has a code of its own: a refused login
 * (SQLSTATE class 28, PgBouncer's 08P01 saying so, or no password to give when the server asks), an
 * unknown database (3D000, or PgBouncer's 08P01 saying so), a startup setting refused (by the server,
 * or by PgBouncer's 08P01 saying so), TLS refused or failed (a certificate file that could not be
 * read included), an unreachable server (a unix socket with no file too).
 * Undefined for anything else (a connection lost once open, a timeout waiting for a free one).
 *
 * These reasons have codes of their own (`LOGIN_FAILED`...), which tell the application what to fix.
 */
export function connectFailure(
  e: DriverError,
): 'LOGIN_FAILED' | 'DATABASE_NOT_FOUND' | 'TLS_FAILED' | 'HOST_UNREACHABLE' | 'INVALID_CONFIG' | undefined {
  if (e.sqlState?.startsWith('28')) return 'LOGIN_FAILED'
  if (e.sqlState === '3D000') return 'DATABASE_NOT_FOUND'
  // A setting the connection sent as it opened that the server refused: unknown (postgres.js sends a
  // URL parameter it does not read, `sslrootcert`, as one) or of a bad value. Nothing to retry.
  // (As a connection's failure: the same SQLSTATE answering a query is that query's.)
  if (e.kind === 'connection' && e.sqlState !== undefined && STARTUP_SETTING_REFUSED.has(e.sqlState))
    return 'INVALID_CONFIG'
  if (NO_PASSWORD.test(e.message)) return 'LOGIN_FAILED'
  if (e.sqlState === PROTOCOL_VIOLATION) {
    // PgBouncer refuses a login and an unknown database with 08P01 and words of its own.
    if (BOUNCER_LOGIN_REFUSED.test(e.message)) return 'LOGIN_FAILED'
    if (BOUNCER_NO_DATABASE.test(e.message)) return 'DATABASE_NOT_FOUND'
    if (BOUNCER_PARAMETER_REFUSED.test(e.message)) return 'INVALID_CONFIG'
  }
  const codes = [
    e.code,
    stringField(e.cause, 'code'),
    stringField((e.cause as { cause?: unknown })?.cause, 'code'),
  ]
  if (codes.some((c) => c !== undefined && TLS_CODES.test(c))) return 'TLS_FAILED'
  // A file the connection could not read: the TLS settings' (node-postgres reads the `sslrootcert`,
  // `sslcert` and `sslkey` files a connection string names as each connection opens).
  const cause = e.cause as { cause?: unknown } | undefined
  if (stringField(cause, 'syscall') === 'open' || stringField(cause?.cause, 'syscall') === 'open')
    return 'TLS_FAILED'
  if (/does not support SSL/i.test(e.message)) return 'TLS_FAILED'
  if (codes.some((c) => c !== undefined && UNREACHABLE_CODES.has(c))) return 'HOST_UNREACHABLE'
  // A unix socket's file not there: no server (not another file missing, a certificate's).
  if (noSocketFile(e.cause) || noSocketFile((e.cause as { cause?: unknown })?.cause))
    return 'HOST_UNREACHABLE'
  // The network dropped the connection during the TLS handshake ("Client network socket disconnected
  // before secure TLS connection was established", ECONNRESET): no TLS setting to fix, a connection
  // lost while it opened, as it would be on plain TCP.
  if (codes.some((c) => c !== undefined && DROPPED_CODES.has(c))) return undefined
  if (/SSL (connection|negotiation)|TLS|certificate/i.test(e.message)) return 'TLS_FAILED'
  return undefined
}
