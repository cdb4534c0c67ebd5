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
])

/** Is `code` a connection failure code (see {@link CONNECTION_CODES})? */
export function isConnectionCode(code: unknown): boolean {
  return typeof code === 'string' && CONNECTION_CODES.has(code)
}

/**
 * SQLSTATEs after which the server ends the session: connection exceptions (class 08), shutdowns and
 * session timeouts (57P01-57P05), idle-in-transaction timeout (25P03).
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
