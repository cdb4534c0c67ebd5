import { connect } from 'node:net'

/** The CancelRequest's code, where a startup message has its protocol version. */
const CANCEL_REQUEST_CODE = 80877102

/** How long the request's own connection may take before it is dropped. */
const CANCEL_LIMIT_MS = 5_000

/**
 * How long a connection whose backend is being cancelled stays open for the cancel to be answered: a
 * pooler in between (PgBouncer) forwards a cancel only while its client is still connected. A pooler
 * answers within a few round trips; one that does not answer in this time is not reached (a
 * partition), and the connection is closed anyway.
 */
export const CANCEL_WAIT_MS = 250

/**
 * Asks the server at `host:port` to cancel what the backend of cancel key `key` (`pid:secret`, as
 * `cancelKeyOf` writes it) is running, on a connection of its own: its errors are ignored, and it
 * keeps no process alive. A backend closing its client's socket notices only once it next reads or
 * writes it: one waiting on a lock, or running a long statement, holds its locks and its connection
 * slot until then, and may commit after its client gave up. A cancel ends that statement, and with it
 * the transaction. Resolves once the server (or a pooler) closed the request's connection, which it
 * does once it has passed the cancel on, or after {@link CANCEL_WAIT_MS}: close the cancelled
 * connection only then, since a pooler forgets the key of a client that left.
 *
 * @example
 * await sendCancelRequest('127.0.0.1', 5432, '4242:123456789')
 * socket.destroy()
 */
export function sendCancelRequest(host: string, port: number, key: string): Promise<void> {
  const [pid, secret] = key.split(':').map(Number)
  if (!Number.isInteger(pid) || !Number.isInteger(secret)) return Promise.resolve()
  const packet = Buffer.alloc(16)
  packet.writeInt32BE(16, 0)
  packet.writeInt32BE(CANCEL_REQUEST_CODE, 4)
  packet.writeUInt32BE(pid! >>> 0, 8)
  packet.writeUInt32BE(secret! >>> 0, 12)
  const socket = connect({ host, port })
  socket.unref()
  socket.setTimeout(CANCEL_LIMIT_MS, () => socket.destroy())
  socket.on('error', () => {})
  // Written, not ended: PgBouncer drops a cancel whose connection its client half-closed before it was
  // passed on. The server (or the pooler) closes the connection once it has the request.
  socket.once('connect', () => socket.write(packet))
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, CANCEL_WAIT_MS)
    timer.unref()
    socket.once('close', () => {
      clearTimeout(timer)
      resolve()
    })
  })
}
