import { Socket } from 'node:net'
import type postgres from 'postgres'

type SocketFactory = (options: { host?: unknown; port?: unknown; path?: unknown }) => Socket | Promise<Socket>
type AnyOptions = postgres.Options<Record<string, postgres.PostgresType>>

/**
 * postgres.js options with TCP_NODELAY set on every connection. postgres.js leaves Nagle's algorithm
 * on and writes a pipelined burst in 1 KB pieces; with Nagle, the pieces after the first wait for the
 * server's (delayed) ACK, so a burst over 1 KB can cost a second round trip of wall time. Keeps a
 * `socket` factory already in `options` (e.g. a round-trip counter) and sets the flag on its sockets.
 * Connects to the first host only (postgres.js does not rotate hosts for a custom socket).
 *
 * @example
 * const sql = postgres(url, noDelay({ max: 10 }))
 */
export function noDelay<T extends AnyOptions>(options: T = {} as T): T {
  const inner = (options as { socket?: SocketFactory }).socket
  const socket: SocketFactory = async (o) => {
    const s = inner ? await inner(o) : await connectTcp(o)
    s.setNoDelay(true)
    return s
  }
  return { ...options, socket } as T
}

function connectTcp(o: { host?: unknown; port?: unknown; path?: unknown }): Promise<Socket> {
  const first = (v: unknown) => (Array.isArray(v) ? v[0] : v)
  const s = new Socket()
  return new Promise((resolve, reject) => {
    s.once('error', reject)
    const done = () => {
      s.off('error', reject)
      resolve(s)
    }
    if (typeof o.path === 'string' && o.path) s.connect(o.path, done)
    else s.connect(Number(first(o.port) ?? 5432), String(first(o.host) ?? 'localhost'), done)
  })
}
