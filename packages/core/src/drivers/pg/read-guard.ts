import type { Duplex } from 'node:stream'

const guarded = new WeakSet<Duplex>()

/**
 * Makes a read node-postgres cannot make end the connection instead of the process. Its parser runs
 * in the socket's `data` listener and throws when a message says more than the bytes hold (a pooler
 * wrote its error behind a half-sent row when its server link broke): thrown from there, the error
 * was uncaught. Such a RangeError now destroys the socket with it, which pg reports to the query and
 * the pool as the connection's error; any other exception goes on as it was.
 *
 * @example
 * guardReading(client.connection.stream)
 */
export function guardReading(stream: Duplex): void {
  if (guarded.has(stream)) return
  guarded.add(stream)
  const emit = stream.emit
  stream.emit = function (this: Duplex, event: string | symbol, ...args: unknown[]): boolean {
    if (event !== 'data') return emit.call(this, event, ...args)
    try {
      return emit.call(this, event, ...args)
    } catch (e) {
      if (!(e instanceof RangeError)) throw e
      this.destroy(e)
      return false
    }
  } as Duplex['emit']
}
