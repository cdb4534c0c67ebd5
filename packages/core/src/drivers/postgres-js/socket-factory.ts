import { Socket } from 'node:net'
import type { TLSSocket } from 'node:tls'
import { notWritableError } from '../driver-errors.ts'
import type { Admission } from '../socket/socket-meter.ts'
import { refusalOf, targetSessionAttrs, wantsPrimary } from '../socket/target-session.ts'
import { watchTlsUpgrade } from '../socket/tls-upgrade.ts'
import type { PostgresJsOptions, SocketFactory } from './client-types.ts'
import { HostOrder } from './host-order.ts'

/**
 * What the factory tells about every socket it hands to postgres.js, with how to judge its connection
 * at the end of the startup (`admit`, when the client has `target_session_attrs`).
 */
export type OnSocket = (socket: Socket, admit: Admission | undefined) => StartupSeen | undefined

/** What the meter saw of a connection's startup: whether it is over (the server's first ReadyForQuery). */
export interface StartupSeen {
  readonly ready: boolean
}

/** What the factory tells when postgres.js put a TLS socket over one of its sockets. */
export type OnTls = (socket: Socket, tls: TLSSocket) => void

/**
 * The socket factory pipeflush gives a postgres.js client: TCP_NODELAY on every connection (postgres.js
 * leaves Nagle's algorithm on, so a pipelined message over one segment can wait for a delayed ACK: a
 * second round trip of wall time), and `onSocket` sees each socket before postgres.js writes to it.
 *
 * postgres.js connects a socket of its own, but skips that step for a factory's socket: it then
 * neither sets `socket.host` (which its TLS upgrade reads for SNI and host name verification) nor
 * tries the hosts of a multi-host URL. This factory does both: it tries the hosts in the order
 * {@link HostOrder} gives (the URL's, hosts refused for `target_session_attrs` last), each within
 * `connect_timeout`, and sets `host` and `port` on the socket. A factory already in the options
 * (`inner`) is kept: it connects (given one host at a time when the URL has several), this one adds
 * the rest.
 *
 * With `target_session_attrs` `read-write` or `primary`, each connection is judged at the end of its
 * startup by what the server reported then (`in_hot_standby`, `default_transaction_read_only`: no
 * round trip), and one to a standby is refused (`admit`, applied by the meter): its socket is destroyed
 * with a `SERVER_NOT_WRITABLE` error before postgres.js sees the server ready, which postgres.js takes
 * as a failed attempt and opens the connection again, through this factory, at the next host. When
 * no host serves the client (a host refused before, picked because every other failed, is refused
 * again), the error is marked as one of an attempt that connected to no host ({@link EVERY_HOST}):
 * the request fails at once, and the next attempts are spaced out (see {@link EveryHostPause}).
 * postgres.js 3.4.9 decides `read-write` by `default_transaction_read_only` alone, which a hot standby
 * reports off: on its own it would keep the connection.
 *
 * postgres.js handles each socket's close a macrotask late (see `deferCloseListeners`; over TLS, on the
 * TLS socket: `deferDriverCloseOn`), and `onDriverClosed` is called then (given the error of a refused
 * opening: see `refusal`). `onTls` is told the TLS socket postgres.js puts over a socket, as it is made.
 * While `refusal` gives an error, no socket is opened: postgres.js is handed one that fails with it
 * (which rejects the request it connects for).
 * `ended` is asked again once a socket opened: a client ended meanwhile gets no connection (postgres.js
 * ended the connection while it waited for the socket, and would start it on this one all the same,
 * an idle connection kept open after the end); when no host of a multi-host URL could be connected
 * to, the request of a client ended meanwhile fails (postgres.js would open again for it).
 */
export function socketFactory(
  inner: SocketFactory | undefined,
  onSocket: OnSocket,
  onDriverClosed: (refused: Error | undefined) => void = () => {},
  onTls: OnTls = () => {},
  refusal: () => Error | undefined = () => undefined,
  ended: () => Error | undefined = () => undefined,
  fetchingTypes: (socket: Socket) => boolean = () => false,
  ending: () => boolean = () => false,
): SocketFactory {
  let hostOrder: HostOrder | undefined
  const pause = new EveryHostPause()
  const open = async (
    options: PostgresJsOptions,
  ): Promise<{ socket: Socket; index: number; fallback: boolean } | Error> => {
    const hosts = options.path ? 1 : options.host.length
    if (inner && hosts <= 1)
      return { socket: named(await inner(options), options, 0), index: 0, fallback: false }
    if (options.path)
      return { socket: await connect(options, { path: options.path }), index: 0, fallback: false }
    hostOrder ??= new HostOrder(hosts)
    // No host served the last attempt: an end asked meanwhile (nothing of pipeflush's waiting) is not
    // held by the next one (postgres.js reopens at once for a request it holds, for ever: the end
    // would wait for its openings for ever).
    if (await pause.wait(ending)) {
      const refused = refusal()
      if (refused !== undefined) return refused
    }
    const failures: unknown[] = []
    for (const index of hostOrder.order()) {
      const host = options.host[index] ?? 'localhost'
      const port = options.port[index] ?? options.port[0] ?? 5432
      // A host refused for `target_session_attrs` comes after the others: tried, they all failed.
      const fallback = hosts > 1 && hostOrder.refused(index)
      try {
        const socket = inner
          ? named(await inner({ ...options, host: [host], port: [port] }), options, index)
          : Object.assign(await connect(options, { host, port }), { host, port })
        // A connection judged at the end of its startup is no connection made until it is accepted
        // there (a standby accepts TCP connections, to refuse them at the end of the startup).
        if (!judgedAtStartup(options)) pause.connected()
        return { socket, index, fallback }
      } catch (e) {
        failures.push(e)
      }
    }
    if (hosts > 1) pause.failed()
    throw hosts > 1 ? everyHostFailed(failures) : failures[0]
  }
  // With several hosts postgres.js never fails a request for a socket that fails (it takes it for one
  // host's failure and opens again): it does for a server's refusal.
  const refusedSocket = (error: Error, options: PostgresJsOptions) =>
    !options.path && options.host.length > 1
      ? refusingSocket(error, options)
      : failedSocket(error, options, { refused: true })
  return async (options) => {
    let socket: Socket
    let admit: Admission | undefined
    /** The host of a multi-host URL the socket went to, watched until its startup is over. */
    let watched: { readonly index: number; readonly judged: { done: boolean } } | undefined
    let refused = refusal()
    if (refused !== undefined) socket = refusedSocket(refused, options)
    else
      try {
        // An Error: the opening is refused (an end asked during a pause).
        const opened = await open(options)
        refused = opened instanceof Error ? opened : ended()
        if (refused !== undefined) {
          if (!(opened instanceof Error)) opened.socket.destroy()
          socket = refusedSocket(refused, options)
        } else {
          // Not refused: a socket was opened.
          const { index, fallback } = opened as { socket: Socket; index: number; fallback: boolean }
          socket = (opened as { socket: Socket }).socket
          socket.setNoDelay(true)
          admit = admission(options, socket, index, hostOrder, pause, fallback)
          if (hostOrder !== undefined && !options.path && options.host.length > 1) {
            // A connection judged at its startup's end is the judgement's (see `admission`).
            const judge = admit
            const judged = { done: false }
            if (judge !== undefined)
              admit = (parameters) => {
                judged.done = true
                return judge(parameters)
              }
            watched = { index, judged }
          }
        }
      } catch (e) {
        refused = ended()
        socket = refused === undefined ? failedSocket(e as Error, options) : refusedSocket(refused, options)
      }
    // A refused opening is no attempt: not metered (a failed attempt would count against other waits).
    const seen = refused === undefined ? onSocket(socket, admit) : undefined
    const watchTls =
      watched !== undefined && hostOrder !== undefined
        ? watchStartup(socket, watched.index, hostOrder, seen, watched.judged)
        : undefined
    const quiet = () => fetchingTypes(socket)
    const closed = () => onDriverClosed(refused)
    deferCloseListeners(socket, closed, quiet)
    holdDataOnceDestroyed(socket)
    answerFatalTypeFetch(socket, quiet)
    watchTlsUpgrade(socket, (tls) => {
      watchTls?.(tls)
      deferDriverCloseOn(tls, closed, quiet)
      holdDataOnceDestroyed(tls)
      answerFatalTypeFetch(tls, quiet)
      onTls(socket, tls)
    })
    return socket
  }
}

/**
 * Marks the error of a connection attempt for which no host of a multi-host URL could be connected to
 * (see {@link everyHostFailed}).
 */
export const EVERY_HOST: unique symbol = Symbol('pipeflush.everyHostFailed')

/**
 * The error of an attempt that tried every host of a multi-host URL and connected to none: each host's
 * failure in its message, the last one's code (`ECONNREFUSED`...: what the failure is classified by).
 * postgres.js takes such a socket's failure for one host's and opens again, for ever (it rejects the
 * waiting requests only when the URL has one host): the reservation reads the mark ({@link EVERY_HOST})
 * and fails at once, as with one host.
 */
function everyHostFailed(failures: readonly unknown[]): Error & { code?: string; [EVERY_HOST]: true } {
  const last = failures.at(-1) as { code?: unknown } | undefined
  const reasons = failures.map((f) => (f instanceof Error ? f.message : String(f)))
  return Object.assign(new Error(`could not connect to any host: ${reasons.join('; ')}`), {
    ...(typeof last?.code === 'string' ? { code: last.code } : {}),
    cause: last,
    [EVERY_HOST]: true as const,
  })
}

/**
 * Tells `order` when `socket` (to host `index`) closes before its startup was over (`seen`, the meter's;
 * without one, before the server sent a byte), unless its startup's judgement refused it (`judged`):
 * that host is tried after the others next time (see {@link HostOrder.unanswered}). Answers what
 * watches the TLS socket postgres.js puts over it, whose close is the connection's then (postgres.js
 * takes every listener off the socket as it upgrades it).
 */
function watchStartup(
  socket: Socket,
  index: number,
  order: HostOrder,
  seen: StartupSeen | undefined,
  judged: { readonly done: boolean },
): (tls: TLSSocket) => void {
  let answered = false
  // A CancelRequest's connection is closed by the server without a byte: no sign of a silent host.
  let cancel = false
  let first = true
  const write = socket.write
  socket.write = function (this: Socket, chunk: unknown, ...rest: unknown[]) {
    if (first) {
      first = false
      cancel = isCancelRequest(chunk)
    }
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest)
  } as Socket['write']
  socket.prependOnceListener('data', () => {
    answered = true
  })
  let over = false
  const closed = () => {
    if (over) return
    over = true
    if (cancel || judged.done) return
    if (seen === undefined ? !answered : !seen.ready) order.unanswered(index)
  }
  socket.once('close', closed)
  return (tls) => {
    tls.once('close', closed)
  }
}

/** Whether `chunk` is a CancelRequest (16 bytes: its length, then the code 80877102). */
function isCancelRequest(chunk: unknown): boolean {
  return (
    chunk instanceof Uint8Array && chunk.byteLength === 16 && Buffer.from(chunk).readUInt32BE(4) === 80877102
  )
}

/** `socket` with `host` and `port` set (to host `index` of `options`) where its factory did not. */
function named(socket: Socket, options: PostgresJsOptions, index: number): Socket {
  const s = socket as Socket & { host?: unknown; port?: unknown }
  s.host ??= options.path ? undefined : options.host[index]
  s.port ??= options.path ? undefined : (options.port[index] ?? options.port[0])
  return socket
}

/**
 * How the connection on `socket` (to host `index`) is judged at the end of its startup, for the
 * client's `target_session_attrs`: none without them. Tells `order` what it learnt of the host.
 * `read-write` and `primary` refuse a server that reported itself in recovery (or, for `read-write`,
 * read-only); the other values, and a server that did not report `in_hot_standby` (before
 * PostgreSQL 14), are left to postgres.js's own check.
 */
function admission(
  options: PostgresJsOptions,
  socket: Socket,
  index: number,
  order: HostOrder | undefined,
  pause: EveryHostPause,
  fallback: boolean,
): Admission | undefined {
  const attrs = targetSessionAttrs(options.target_session_attrs)
  if (attrs === 'any') return undefined
  const named = socket as Socket & { host?: unknown; port?: unknown }
  const address = options.path ? String(options.path) : `${String(named.host)}:${String(named.port)}`
  return (parameters) => {
    const refusal = wantsPrimary(attrs) ? refusalOf(attrs, parameters) : 'unknown'
    order?.judged(index, refusal === 'unknown' ? undefined : refusal === undefined)
    if (refusal === undefined || refusal === 'unknown') {
      pause.connected()
      return undefined
    }
    const error = notWritableError(address, attrs, refusal)
    if (!fallback) return error
    // A host refused before, tried because every other failed, refused again: no host serves the
    // client now (a failover before the promotion). As when none could be connected to, the request
    // fails at once, and the next attempt waits (see `EveryHostPause`).
    pause.failed()
    return Object.assign(error, { [EVERY_HOST]: true as const })
  }
}

/** Whether a connection to the client's server is judged at the end of its startup (see `admission`). */
function judgedAtStartup(options: PostgresJsOptions): boolean {
  return wantsPrimary(targetSessionAttrs(options.target_session_attrs))
}

/** An empty answer to a query: CommandComplete (`SELECT 0`), then ReadyForQuery (idle). */
const EMPTY_ANSWER = Buffer.from([0x43, 0, 0, 0, 13, ...Buffer.from('SELECT 0\0'), 0x5a, 0, 0, 0, 5, 0x49])

/**
 * The FATAL (or PANIC) ErrorResponse of `chunk`, read message by message from its start: where it
 * starts, its message and SQLSTATE. Undefined when there is none (or a message runs past the chunk).
 */
function fatalIn(chunk: Buffer): { at: number; message: string; code: string } | undefined {
  let i = 0
  while (i + 5 <= chunk.length) {
    const end = i + 1 + chunk.readUInt32BE(i + 1)
    if (end > chunk.length || end < i + 5) return undefined
    if (chunk[i] === 0x45) {
      const fields = new Map<number, string>()
      let f = i + 5
      while (f < end && chunk[f] !== 0) {
        const zero = chunk.indexOf(0, f + 1)
        if (zero < 0 || zero >= end) break
        fields.set(chunk[f]!, chunk.toString('utf8', f + 1, zero))
        f = zero + 1
      }
      const severity = fields.get(0x56) ?? fields.get(0x53)
      if (severity === 'FATAL' || severity === 'PANIC')
        return {
          at: i,
          message: fields.get(0x4d) ?? 'the server ended the connection',
          code: fields.get(0x43) ?? '',
        }
    }
    i = end
  }
  return undefined
}

/**
 * Answers the connection's array type fetch (the query postgres.js runs after its startup, which
 * nothing awaits) with no types, where the server answered it with a FATAL error: a pooler whose
 * server is down (PgBouncer's `server_login_retry`) answers a startup itself, then fails the first
 * query so. postgres.js 3.4.9 rejected the fetch, unhandled, which ends a process under Node's
 * defaults. The socket is then destroyed with the server's error, which postgres.js gives the request
 * the connection opened for (its message names the reason: `server_login_retry`).
 */
function answerFatalTypeFetch(socket: Socket, fetching: () => boolean): void {
  const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean
  socket.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event !== 'data' || !fetching() || !Buffer.isBuffer(args[0])) return emit(event, ...args)
    const chunk = args[0]
    const fatal = fatalIn(chunk)
    if (fatal === undefined) return emit(event, ...args)
    const error = Object.assign(new Error(fatal.message), { code: fatal.code, severity: 'FATAL' })
    setImmediate(() => socket.destroy(error))
    return emit('data', Buffer.concat([chunk.subarray(0, fatal.at), EMPTY_ANSWER]))
  }) as Socket['emit']
}

/**
 * Hands the `data` listeners added from now on (postgres.js's) nothing once `socket` is destroyed:
 * the meter, which reads each chunk first, destroys the socket of a connection it refuses at the end
 * of the startup (see `Admission`), and the rest of that chunk (the server's ReadyForQuery) must not
 * reach postgres.js, which would take the connection as ready and hand it out.
 */
function holdDataOnceDestroyed(socket: Socket): void {
  type Listener = (...args: unknown[]) => void
  const on = socket.on.bind(socket) as (event: string | symbol, listener: Listener) => Socket
  socket.on = ((event: string | symbol, listener: Listener) => {
    if (event !== 'data') return on(event, listener)
    const held = (...args: unknown[]) => {
      if (!socket.destroyed) listener(...args)
    }
    // EventEmitter's removeListener also matches a wrapper by its `listener`.
    return on(event, Object.assign(held, { listener }))
  }) as Socket['on']
  socket.addListener = socket.on
}

/**
 * Makes the `close` listeners added from now on (postgres.js's) run one macrotask after the close.
 * postgres.js writes a query in a `setImmediate` after it was executed, and its close handler clears
 * that timer without forgetting it: once that happened, the connection never writes again (not even
 * its startup message when it reconnects) until a write of 1 KiB or more goes through at once. Run a
 * macrotask later, the close handler finds the pending write done (written to the closed socket,
 * which only fails that write), so the timer is forgotten and the connection stays usable. The meter's
 * own listeners, added before, see the close at once; `onDriverClosed` is called once postgres.js
 * handled it (its pool may then have reconnected the connection for a waiting request).
 */
function deferCloseListeners(socket: Socket, onDriverClosed: () => void, quiet: () => boolean): void {
  type Listener = (...args: unknown[]) => void
  const on = socket.on.bind(socket) as (event: string | symbol, listener: Listener) => Socket
  socket.on = ((event: string | symbol, listener: Listener) => {
    // postgres.js's own error listener (named `error`); others (Node's TLS upgrade's) as they are.
    if (event === 'error' && listener.name === 'error')
      return on(event, Object.assign(quietError(listener, quiet), { listener }))
    if (event !== 'close') return on(event, listener)
    const deferred = (...args: unknown[]) =>
      void setImmediate(() => {
        quietClose(listener, quiet)(...args)
        onDriverClosed()
      })
    // EventEmitter's removeListener also matches a wrapper by its `listener`.
    return on(event, Object.assign(deferred, { listener }))
  }) as Socket['on']
  socket.addListener = socket.on
}

/**
 * Over TLS, postgres.js's close handler is on the TLS socket, put there as
 * `tls.connect` returned: it is put back to run one macrotask late, for the reason
 * {@link deferCloseListeners} gives.
 */
function deferDriverCloseOn(tls: TLSSocket, onDriverClosed: () => void, quiet: () => boolean): void {
  for (const listener of tls.listeners('close')) {
    if (listener.name !== 'closed') continue
    tls.removeListener('close', listener as (...args: unknown[]) => void)
    tls.on('close', (...args: unknown[]) =>
      setImmediate(() => {
        quietClose(listener as (...args: unknown[]) => void, quiet)(...args)
        onDriverClosed()
      }),
    )
  }
  for (const listener of tls.listeners('error')) {
    if (listener.name !== 'error') continue
    tls.removeListener('error', listener as (...args: unknown[]) => void)
    tls.prependListener('error', quietError(listener as (...args: unknown[]) => void, quiet))
  }
}

/**
 * postgres.js's error listener, not called while `quiet` (see {@link quietClose}): its close follows.
 */
function quietError(listener: (...args: unknown[]) => void, quiet: () => boolean) {
  return function (this: unknown, ...args: unknown[]) {
    if (!quiet()) listener.apply(this, args)
  }
}

/**
 * postgres.js's close handler, told the close had an error while `quiet`: the connection's socket
 * closed while it fetched the client's array types (the query it runs after its startup, before it
 * serves the request it opened for). postgres.js 3.4.9 rejects that query at a close without an error
 * (or at the error before one), and nothing awaits it: an unhandled rejection, which ends a process
 * under Node's defaults. Closed "with an error", it leaves the query be, counts the failure for its
 * backoff and opens again for the request, as it does for a connection lost before its startup ended.
 */
function quietClose(listener: (...args: unknown[]) => void, quiet: () => boolean) {
  return (...args: unknown[]) => listener(...(quiet() ? [true] : args))
}

/**
 * A socket that fails as soon as postgres.js writes its startup message: it emits `error` (the reason
 * the connection could not be made) and `close`, the path postgres.js handles for a socket of its own.
 * A factory that throws instead would leave the connection object stuck among those connecting (no
 * close event ever moves it back), a slot of the pool lost for good; failing before the first write
 * would leave postgres.js's pending write timer behind, stalling that connection's next startup.
 * `refused`: an opening the client refused, no attempt: its close is one without an error, as after
 * postgres.js's own connect timeout (see {@link endOpening}), so that postgres.js does not count it
 * as a failure and wait longer before its next reconnects (its backoff grows with each failure, to
 * 20 s: refusals during an outage held the first openings after it).
 */
function failedSocket(error: Error, options: PostgresJsOptions, { refused = false } = {}): Socket {
  const socket = new Socket()
  Object.assign(socket, { host: options.host[0], port: options.port[0] })
  let failing = false
  const fail = () => {
    if (failing) return
    failing = true
    clearTimeout(fallback)
    setImmediate(() => (refused ? endOpening(socket, error) : socket.destroy(error)))
  }
  socket.write = ((..._args: unknown[]) => {
    fail()
    return true
  }) as Socket['write']
  const fallback = setTimeout(fail, 1000)
  return socket
}

/**
 * Ends the opening on `socket` as postgres.js's own connect timeout does: its `error` listeners told
 * `error` (postgres.js rejects the request it opens for with it, and does not open again for that
 * request), then closed without an error (postgres.js's backoff not grown, as for a timeout).
 */
export function endOpening(socket: Socket, error: Error): void {
  if (socket.destroyed) return
  // No listener: postgres.js no longer drives the socket (it upgraded it to TLS); an 'error' then throws.
  if (socket.listenerCount('error') > 0) socket.emit('error', error)
  socket.destroy()
}

/**
 * A socket for an opening refused on a client with several hosts, which answers as a server refusing
 * the connection would: `N` to an SSLRequest, a FATAL ErrorResponse (SQLSTATE 08004, the message of
 * `error`) to the startup, then closes. postgres.js fails the request it opens for with that error; a socket that
 * failed it would take for one host's failure, and open again at once, for ever. Over a TLS it
 * requires (the `N` refused) it hears nothing more: postgres.js fails the request at its
 * `connect_timeout`.
 */
function refusingSocket(error: Error, options: PostgresJsOptions): Socket {
  const socket = new Socket()
  Object.assign(socket, { host: options.host[0], port: options.port[0] })
  socket.write = ((chunk: unknown) => {
    const ssl = isSslRequest(chunk)
    const answer = ssl ? Buffer.from('N') : errorResponse('08004', error.message)
    setImmediate(() => {
      if (socket.destroyed) return
      socket.emit('data', answer)
      // The server closes the connection after its FATAL: postgres.js then clears its timers.
      if (!ssl) socket.destroy()
    })
    return true
  }) as Socket['write']
  return socket
}

/** Whether `chunk` is the SSLRequest a connection starts with (length 8, code 80877103). */
function isSslRequest(chunk: unknown): boolean {
  return (
    Buffer.isBuffer(chunk) &&
    chunk.length === 8 &&
    chunk.readInt32BE(0) === 8 &&
    chunk.readInt32BE(4) === 80877103
  )
}

/** A FATAL ErrorResponse message of SQLSTATE `code`. */
function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`, 'utf8')
  const head = Buffer.alloc(5)
  head.write('E', 0, 'latin1')
  head.writeInt32BE(4 + fields.length, 1)
  return Buffer.concat([head, fields])
}

/**
 * How long a multi-host client waits before it tries the hosts again after an attempt that connected
 * to none, or whose connection was refused for `target_session_attrs` by a host refused before (every
 * other host failed: no host serves the client, a failover before the promotion): postgres.js opens
 * again at once after a failed opening, so while every host refuses, a request would try them
 * thousands of times a second. The first attempt is not delayed (the request fails at once, as with
 * one host: see `reservation.ts`); the next waits 100 ms, then twice as long each time, at most
 * {@link MAX_PAUSE_MS}; a connection made (accepted at the end of its startup, when judged there)
 * starts over. An end asked during a pause refuses the opening after it (see `socketFactory`).
 */
class EveryHostPause {
  #failedAt = Number.NEGATIVE_INFINITY
  #ms = 0

  /**
   * Resolves once the pause after the last attempt that connected to no host is over, or `stop`
   * says so (asked every {@link PAUSE_CHECK_MS}): whether it paused at all.
   */
  async wait(stop: () => boolean): Promise<boolean> {
    let left = this.#failedAt + this.#ms - performance.now()
    if (left <= 0) return false
    while (left > 0 && !stop()) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(left, PAUSE_CHECK_MS)))
      left = this.#failedAt + this.#ms - performance.now()
    }
    return true
  }

  failed(): void {
    this.#failedAt = performance.now()
    this.#ms = this.#ms === 0 ? FIRST_PAUSE_MS : Math.min(MAX_PAUSE_MS, this.#ms * 2)
  }

  connected(): void {
    this.#ms = 0
  }
}

const FIRST_PAUSE_MS = 100
/** How often a pause asks whether to stop (see {@link EveryHostPause.wait}). */
const PAUSE_CHECK_MS = 50
const MAX_PAUSE_MS = 2_000

/** A connected TCP (or unix) socket, or an error naming where it tried, within `connect_timeout`. */
function connect(
  options: PostgresJsOptions,
  to: { readonly host: string; readonly port: number } | { readonly path: string },
): Promise<Socket> {
  const where = 'path' in to ? to.path : `${to.host}:${to.port}`
  const seconds = Number(options.connect_timeout ?? 30)
  return new Promise((resolve, reject) => {
    const socket = new Socket()
    const fail = (error: Error & { code?: string }) => {
      clearTimeout(timer)
      socket.destroy()
      const wrapped = Object.assign(new Error(`could not connect to ${where}: ${error.message}`), {
        code: error.code ?? 'ECONNREFUSED',
        cause: error,
      })
      reject(wrapped)
    }
    const timer =
      seconds > 0
        ? setTimeout(
            () =>
              fail(Object.assign(new Error(`no answer within ${seconds} s`), { code: 'CONNECT_TIMEOUT' })),
            seconds * 1000,
          )
        : undefined
    socket.once('error', fail)
    socket.once('connect', () => {
      clearTimeout(timer)
      socket.off('error', fail)
      resolve(socket)
    })
    if ('path' in to) socket.connect(to.path)
    else socket.connect(to.port, to.host)
  })
}
