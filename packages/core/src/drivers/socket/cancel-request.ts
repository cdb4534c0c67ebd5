import { connect } from 'node:net'

/** The CancelRequest's code, where a startup message has its protocol version. */
const CANCEL_REQUEST_CODE = 80877102

/** How long the request's own connection may take before it is dropped. */
const CANCEL_LIMIT_MS = 5_000

/**
 * Asks the server at `host:port` to cancel what the backend of cancel key `key` (`pid:secret`, as
 * `cancelKeyOf` writes it) is running, on a connection of its own, and forgets it: nothing waits for
 * it, its errors are ignored, and it keeps no process alive. A backend closing its client's socket
 * notices only once it next reads or writes it: one waiting on a lock, or running a long statement,
 * holds its locks and its connection slot until then, and may commit after its client gave up. A
 * cancel ends that statement, and with it the transaction.
 *
 * @example
 * sendCancelRequest('127.0.0.1', 5432, '4242:123456789')
 */
export function sendCancelRequest(host: string, port: number, key: string): void {
  const [pid, secret] = key.split(':').map(Number)
  if (!Number.isInteger(pid) || !Number.isInteger(secret)) return
  const packet = Buffer.alloc(16)
  packet.writeInt32BE(16, 0)
  packet.writeInt32BE(CANCEL_REQUEST_CODE, 4)
  packet.writeUInt32BE(pid! >>> 0, 8)
  packet.writeUInt32BE(secret! >>> 0, 12)
  const socket = connect({ host, port })
  socket.unref()
  socket.setTimeout(CANCEL_LIMIT_MS, () => socket.destroy())
  socket.on('error', () => {})
  socket.once('connect', () => socket.end(packet))
}
