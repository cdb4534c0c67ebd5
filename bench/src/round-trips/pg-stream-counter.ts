import { Socket } from 'node:net'
import type { RoundTripCount } from '@pipeflush/testkit'

/** What the measurements need from a round-trip counter (the test kit's counter has the same shape). */
export interface RoundTripReader {
  read(): RoundTripCount
  /** Starts counting from zero; the next write on any connection counts as a round trip. */
  reset(): void
}

/** A round-trip counter for node-postgres: pass `stream` as the `pg` Client or Pool `stream` option. */
export interface PgStreamCounter extends RoundTripReader {
  /** node-postgres `stream` option: called once per connection, returns an unconnected socket. */
  readonly stream: () => Socket
}

/**
 * Counts round trips at the socket for node-postgres clients, with the test kit's rule: a round trip
 * is a write after data came back since the previous write. node-postgres connects the socket itself,
 * so the counting `write` is put on at `connect` (Node replaces `write` on a socket while it connects),
 * before node-postgres writes its startup message.
 *
 * @example
 * const counter = createPgStreamCounter()
 * const client = new pg.Client({ connectionString, stream: counter.stream })
 */
export function createPgStreamCounter(): PgStreamCounter {
  let roundTrips = 0
  let writes = 0
  let bytesOut = 0
  let bytesIn = 0
  let connections = 0
  const states = new Set<{ receivedSinceWrite: boolean }>()

  const stream = (): Socket => {
    const s = new Socket()
    const state = { receivedSinceWrite: true }
    states.add(state)
    connections++
    s.once('connect', () => {
      const write = s.write.bind(s) as (...args: unknown[]) => boolean
      s.write = ((chunk: unknown, ...rest: unknown[]) => {
        if (state.receivedSinceWrite) {
          roundTrips++
          state.receivedSinceWrite = false
        }
        writes++
        bytesOut += typeof chunk === 'string' ? Buffer.byteLength(chunk) : byteLength(chunk)
        return write(chunk, ...rest)
      }) as Socket['write']
    })
    s.on('data', (d: Buffer) => {
      bytesIn += d.length
      state.receivedSinceWrite = true
    })
    s.once('close', () => states.delete(state))
    return s
  }

  return {
    stream,
    read: () => ({ roundTrips, writes, bytesOut, bytesIn, connections }),
    reset() {
      roundTrips = writes = bytesOut = bytesIn = 0
      for (const s of states) s.receivedSinceWrite = true
    },
  }
}

function byteLength(chunk: unknown): number {
  return chunk instanceof Uint8Array ? chunk.byteLength : 0
}
