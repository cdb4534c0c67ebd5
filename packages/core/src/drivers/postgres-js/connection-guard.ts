import { UNWRITTEN } from '../driver-errors.ts'
import { cancelKeyOf } from '../socket/socket-meter.ts'
import type { PostgresJsConnection, PostgresJsQuery } from './client-types.ts'

/** Where the guard learns whether a connection's socket ended: the metered socket of a cancel key. */
export interface SocketState {
  /** Undefined when no metered socket has that key (a socket opened before pipeflush took the client). */
  ended(key: string): boolean | undefined
}

const guarded = new WeakSet<PostgresJsConnection>()

/**
 * Guards a postgres.js connection against writes after its socket ended. postgres.js 3.4.9 writes a
 * query without checking that the connection still has a socket: once the socket closed (and until
 * the connection is open again) `execute` schedules a write that throws from a timer
 * (`socket.write` of null), which no caller can catch and which ends the process; a query executed
 * between the socket's `error` and its `close` is never answered and is left in the connection's
 * queue, where the next query's answer settles it after a reconnect. The pool itself hands such a
 * connection to a caller only when someone gave back a connection that had died (`reserved.release()`,
 * which pipeflush never does after an end, but an application's own code may).
 *
 * Once guarded, every `execute` on the connection (pipeflush's reservations, the pool's queries, the
 * application's own `sql.begin` and `sql.reserve` on the same client) first looks up the connection's
 * socket by its cancel key: when that socket ended, the query rejects with `CONNECTION_CLOSED`
 * (postgres.js's own code for a lost connection) and nothing is written. A connection is guarded from
 * the first query pipeflush runs on it; sockets pipeflush does not meter are let through.
 */
export function guardConnection(
  connection: PostgresJsConnection,
  sockets: SocketState,
  address: string,
  state: PostgresJsQuery['state'] = null,
): void {
  if (guarded.has(connection)) return
  const execute = connection.execute
  if (typeof execute !== 'function') return // another postgres.js: nothing to guard
  guarded.add(connection)
  // The connection's cancel key object: postgres.js updates it in place when it connects again.
  let backend: PostgresJsQuery['state'] = null
  const learn = (key: PostgresJsQuery['state']) => {
    if (backend !== null || !key) return
    backend = key
    byState.set(key, connection)
  }
  learn(state)
  connection.execute = (query: PostgresJsQuery) => {
    if (backend !== null && backend.pid !== null && backend.secret !== null) {
      if (sockets.ended(cancelKeyOf(backend.pid, backend.secret)) === true) {
        // Marked as taken by this connection, as postgres.js's own `execute` marks a query first: the
        // reservation that asked it then knows something went to a connection whose socket ended,
        // and must not give that connection back to the pool (see `PostgresJsReservation.discard`).
        ;(query as { state: PostgresJsQuery['state'] }).state = backend
        query.reject(closedConnectionError(address))
        return true // settled: the pool or the reservation goes on as after any answered query
      }
    }
    const ready = execute(query)
    learn(query.state)
    return ready
  }
}

/** The guarded connections by their cancel key object (a query's `state`). */
const byState = new WeakMap<object, PostgresJsConnection>()

/**
 * The guarded connection a query was executed on, by its `state`: postgres.js tells a reservation its
 * connection through `onexecute` only when the write went through at once (not when the socket
 * refused it, nor when the guard rejected the query).
 */
export function guardedConnectionOf(
  state: PostgresJsQuery['state'] | undefined,
): PostgresJsConnection | undefined {
  return state ? byState.get(state) : undefined
}

/** The error postgres.js itself gives a query whose connection closed, marked as never written. */
export function closedConnectionError(address: string): Error {
  return Object.assign(new Error(`write CONNECTION_CLOSED ${address}`), {
    code: 'CONNECTION_CLOSED',
    errno: 'CONNECTION_CLOSED',
    address,
    [UNWRITTEN]: true, // nothing of the query was written: a COMMIT in it did not commit
  })
}
