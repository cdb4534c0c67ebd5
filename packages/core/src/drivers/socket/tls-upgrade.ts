import type { Socket } from 'node:net'
import { TLSSocket } from 'node:tls'

/** What the probe passes to a TLS socket's error listener: no error, only itself. */
const PROBE = Symbol('pipeflush: which TLS socket')

/** The error listener a `TLSSocket` puts on the socket it wraps (Node's `tls` module, since v12). */
const TLS_ERROR_LISTENER = /_emitTLSError/

/** `TLSSocket.prototype` as the probe sees it: the method that listener calls first. */
interface TlsErrorPath {
  _tlsError(error: unknown): unknown
}

/**
 * Whether `listener`, registered on a socket for `error`, is the one a `TLSSocket` wrapping that socket
 * puts there (`(err) => this._emitTLSError(err)`): the sign that the socket was handed to TLS.
 */
export function isTlsErrorListener(listener: unknown): boolean {
  return typeof listener === 'function' && TLS_ERROR_LISTENER.test(String(listener))
}

/**
 * The `TLSSocket` that wraps `socket`, once a driver upgraded the connection (`tls.connect({ socket
 * })`), or undefined. Node keeps no reference from a socket to the TLS socket over it, and postgres.js
 * keeps its TLS socket to itself; but the TLS socket's error listener on `socket` calls
 * `this._emitTLSError(err)`, which calls `this._tlsError(err)` first. For the length of one synchronous
 * call, `_tlsError` is replaced by a function that, given the probe, notes its `this` and returns null
 * (so `_emitTLSError` emits nothing); any other error goes to the original. Only a listener that is that
 * TLS listener is called.
 *
 * The decrypted stream is the only place a connection's messages can be read over TLS: its readiness
 * (to hand it to a reservation) and its cancel key (for the guard) come from there.
 */
export function tlsSocketOver(socket: Socket): TLSSocket | undefined {
  const proto = TLSSocket.prototype as unknown as TlsErrorPath
  const original = proto._tlsError
  if (typeof original !== 'function') return undefined
  let found: TLSSocket | undefined
  proto._tlsError = function (this: TLSSocket, error: unknown) {
    if (error !== PROBE) return original.call(this, error)
    found = this
    return null
  }
  try {
    for (const listener of socket.listeners('error')) {
      if (!isTlsErrorListener(listener)) continue
      try {
        ;(listener as (error: unknown) => void)(PROBE)
      } catch {
        // Not the listener it looked like: nothing learnt from it.
      }
      if (found !== undefined) break
    }
  } finally {
    proto._tlsError = original
  }
  return found
}

/**
 * Calls `onTls` with the TLS socket a driver puts over `socket`, if it does: a `TLSSocket` made over a
 * socket puts its error listener on it while `tls.connect` runs; a microtask later, `tls.connect` has
 * returned and the driver has put its own listeners on the TLS socket, and {@link tlsSocketOver}
 * finds it. Both drivers upgrade this way (postgres.js and node-postgres call `tls.connect({ socket })`).
 */
export function watchTlsUpgrade(socket: Socket, onTls: (tls: TLSSocket) => void): void {
  type Listener = (...args: unknown[]) => void
  const on = socket.on.bind(socket) as (event: string | symbol, listener: Listener) => Socket
  let seen = false
  socket.on = ((event: string | symbol, listener: Listener) => {
    if (!seen && event === 'error' && isTlsErrorListener(listener)) {
      seen = true
      queueMicrotask(() => {
        const tls = tlsSocketOver(socket)
        if (tls !== undefined) onTls(tls)
      })
    }
    return on(event, listener)
  }) as Socket['on']
  socket.addListener = socket.on
}
