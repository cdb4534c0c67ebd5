import { createServer, type Socket } from 'node:net'

/** A server that takes connections and never answers (see {@link startSilentServer}). */
export interface SilentServer {
  /** Its port on 127.0.0.1. */
  readonly port: number
  /** The connections it took and holds. */
  readonly sockets: readonly Socket[]
  /** Ends every connection it holds, then stops listening. */
  close(): Promise<void>
}

/**
 * A server on 127.0.0.1 that accepts every connection and never sends a byte: what a client meets
 * when a host is up but its server hangs (a startup, a query or a TLS request waits for its own
 * timeout). Its connections' errors (a client that gave up) are ignored.
 *
 * @example
 * const silent = await startSilentServer()
 * const sql = postgres({ host: '127.0.0.1', port: silent.port, connect_timeout: 1 })
 * // ...
 * await silent.close()
 */
export async function startSilentServer(): Promise<SilentServer> {
  const sockets: Socket[] = []
  const server = createServer((socket) => {
    sockets.push(socket)
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the silent server has no port')
  return {
    port: address.port,
    sockets,
    close: () => {
      for (const socket of sockets) socket.destroy()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
