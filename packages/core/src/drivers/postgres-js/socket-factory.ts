import { Socket } from 'node:net'
import type { TLSSocket } from 'node:tls'
import { watchTlsUpgrade } from '../socket/tls-upgrade.ts'
import type { PostgresJsOptions, SocketFactory } from './client-types.ts'

/** What the factory tells about every socket it hands to postgres.js. */
export type OnSocket = (socket: Socket) => void

/** What the factory tells when postgres.js put a TLS socket over one of its sockets. */
export type OnTls = (socket: Socket, tls: TLSSocket) => void

/**
 * The socket factory pipeflush gives a postgres.js client: TCP_NODELAY on every connection (postgres.js
 * leaves Nagle's algorithm on, so a pipelined message over one segment can wait for a delayed ACK: a
 * second round trip of wall time), and `onSocket` sees each socket before postgres.js writes to it.
 *
 * postgres.js connects a socket of its own, but skips that step for a factory's socket (`connection.js`
 * `connect`): it then neither sets `socket.host` (which its TLS upgrade reads for SNI and host name
 * verification) nor rotates through the hosts of a multi-host URL. This factory does both: it connects
 * to the hosts in turn, starting after the last one that answered, each within `connect_timeout`, and
 * sets `host` and `port` on the socket. A factory already in the options (`inner`) is kept: it connects,
 * this one adds the rest. postgres.js handles each socket's close a macrotask late (see
 * `deferCloseListeners`; over TLS, on the TLS socket: `deferDriverCloseOn`), and `onDriverClosed` is
 * called then. `onTls` is told the TLS socket postgres.js puts over a socket, as it is made.
 */
export function socketFactory(
  inner: SocketFactory | undefined,
  onSocket: OnSocket,
  onDriverClosed: () => void = () => {},
  onTls: OnTls = () => {},
): SocketFactory {
  let next = 0
  const open = async (options: PostgresJsOptions): Promise<Socket> => {
    if (inner) {
      const socket = await inner(options)
      const named = socket as Socket & { host?: unknown; port?: unknown }
      named.host ??= options.path ? undefined : options.host[0]
      named.port ??= options.path ? undefined : options.port[0]
      return socket
    }
    if (options.path) return connect(options, { path: options.path })
    const hosts = options.host.length
    let last: unknown
    for (let i = 0; i < hosts; i++) {
      const index = (next + i) % hosts
      const host = options.host[index] ?? 'localhost'
      const port = options.port[index] ?? options.port[0] ?? 5432
      try {
        const socket = await connect(options, { host, port })
        next = (index + 1) % hosts
        return Object.assign(socket, { host, port })
      } catch (e) {
        last = e
      }
    }
    next = (next + 1) % hosts
    throw last
  }
  return async (options) => {
    let socket: Socket
    try {
      socket = await open(options)
      socket.setNoDelay(true)
    } catch (e) {
      socket = failedSocket(e as Error, options)
    }
    onSocket(socket)
    deferCloseListeners(socket, onDriverClosed)
    watchTlsUpgrade(socket, (tls) => {
      deferDriverCloseOn(tls, onDriverClosed)
      onTls(socket, tls)
    })
    return socket
  }
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
function deferCloseListeners(socket: Socket, onDriverClosed: () => void): void {
  type Listener = (...args: unknown[]) => void
  const on = socket.on.bind(socket) as (event: string | symbol, listener: Listener) => Socket
  socket.on = ((event: string | symbol, listener: Listener) => {
    if (event !== 'close') return on(event, listener)
    const deferred = (...args: unknown[]) =>
      void setImmediate(() => {
        listener(...args)
        onDriverClosed()
      })
    // EventEmitter's removeListener also matches a wrapper by its `listener`.
    return on(event, Object.assign(deferred, { listener }))
  }) as Socket['on']
  socket.addListener = socket.on
}

/**
 * Over TLS, postgres.js's close handler (`connection.js` `closed`) is on the TLS socket, put there as
 * `tls.connect` returned: it is put back to run one macrotask late, for the reason
 * {@link deferCloseListeners} gives.
 */
function deferDriverCloseOn(tls: TLSSocket, onDriverClosed: () => void): void {
  for (const listener of tls.listeners('close')) {
    if (listener.name !== 'closed') continue
    tls.removeListener('close', listener as (...args: unknown[]) => void)
    tls.on('close', (...args: unknown[]) =>
      setImmediate(() => {
        ;(listener as (...args: unknown[]) => void)(...args)
        onDriverClosed()
      }),
    )
  }
}

/**
 * A socket that fails as soon as postgres.js writes its startup message: it emits `error` (the reason
 * the connection could not be made) and `close`, the path postgres.js handles for a socket of its own.
 * A factory that throws instead would leave the connection object stuck among those connecting (no
 * close event ever moves it back), a slot of the pool lost for good; failing before the first write
 * would leave postgres.js's pending write timer behind, stalling that connection's next startup.
 */
function failedSocket(error: Error, options: PostgresJsOptions): Socket {
  const socket = new Socket()
  Object.assign(socket, { host: options.host[0], port: options.port[0] })
  let failing = false
  const fail = () => {
    if (failing) return
    failing = true
    clearTimeout(fallback)
    setImmediate(() => socket.destroy(error))
  }
  socket.write = ((..._args: unknown[]) => {
    fail()
    return true
  }) as Socket['write']
  const fallback = setTimeout(fail, 1000)
  return socket
}

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
