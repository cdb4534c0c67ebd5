import type { Socket } from 'node:net'
import {
  type ClientOptions,
  createRoundTripCounter,
  type DriverName,
  openClient,
  type RoundTripCounter,
  type TestClient,
} from '@pipeflush/testkit'

/** A test client whose open sockets are known, and whose written bytes can be recorded. */
export interface TrackedClient extends TestClient {
  /** The sockets of the pool that are open now. */
  readonly sockets: ReadonlySet<Socket>
  /**
   * Closes every open connection of the pool from the client side (the pool opens new ones on demand):
   * the next flush opens its connection.
   */
  closeAll(): Promise<void>
  /** Starts recording the bytes the client writes (cleared on each call). */
  record(): void
  /** The bytes written since {@link record}, per socket, in order. */
  recorded(): Buffer[]
}

/**
 * A pool of `driver` on `url` (see the test kit's `openClient`) with its sockets tracked. End it with
 * `end()`.
 *
 * @example
 * const c = openTrackedClient('pg', db.proxiedUrl, { max: 1 })
 * await c.closeAll() // the next flush opens a connection
 */
export function openTrackedClient(
  driver: DriverName,
  url: string,
  options: ClientOptions = {},
): TrackedClient {
  const sockets = new Set<Socket>()
  let recording: Map<Socket, Buffer[]> | undefined
  const counter = trackSockets(createRoundTripCounter(), (s) => {
    sockets.add(s)
    s.once('close', () => sockets.delete(s))
    const write = s.write.bind(s) as (chunk: unknown, ...rest: unknown[]) => boolean
    s.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (recording) {
        const list = recording.get(s) ?? []
        list.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array))
        recording.set(s, list)
      }
      return write(chunk, ...rest)
    }) as Socket['write']
  })
  const client = openClient(driver, url, counter, options)
  return {
    ...client,
    sockets,
    async closeAll() {
      const open = [...sockets]
      await Promise.all(open.map((s) => new Promise((resolve) => s.once('close', resolve).destroy())))
      // The drivers handle the close in the same turn; one more lets the pools drop those connections.
      await new Promise((resolve) => setTimeout(resolve, 5))
    },
    record() {
      recording = new Map()
    },
    recorded() {
      return [...(recording?.values() ?? [])].map((chunks) => Buffer.concat(chunks))
    },
  }
}

/**
 * `counter` whose sockets are also given to `onSocket` once connected, before the driver writes
 * (after the counter's own wrapper: `onSocket` may wrap `write` too).
 */
function trackSockets(counter: RoundTripCounter, onSocket: (s: Socket) => void): RoundTripCounter {
  return {
    read: () => counter.read(),
    reset: () => counter.reset(),
    measure: (fn) => counter.measure(fn),
    socket: async (options) => {
      const s = await counter.socket(options)
      onSocket(s)
      return s
    },
    stream: () => {
      const s = counter.stream()
      s.once('connect', () => onSocket(s))
      return s
    },
  }
}
