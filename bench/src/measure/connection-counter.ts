import type { Socket } from 'node:net'
import {
  createRoundTripCounter,
  type RoundTripCount,
  type RoundTripCounter,
  type SocketFactoryOptions,
} from '@pipeflush/testkit'

/** One connection's round trips since the last reset, as the test kit's counter saw them. */
export interface ConnectionCount {
  readonly roundTrips: number
  /**
   * Of `roundTrips`, those of opening the connection: its startup message, the authentication
   * exchange (password or SASL messages), and the catalog query postgres.js sends on every new
   * connection (`fetch_types`).
   */
  readonly opening: number
}

/** A round-trip counter for a whole pool that also tells each connection's count apart. */
export interface ConnectionCounter extends RoundTripCounter {
  /** Each connection's round trips since the last reset (connections closed since then included). */
  perConnection(): ConnectionCount[]
}

/** Bytes of postgres.js's array-type query on a new connection (`select b.oid, b.typarray ... typcategory = 'A'`). */
const FETCH_TYPES = Buffer.from("typcategory = 'A'")

interface Child {
  readonly counter: RoundTripCounter
  opening: number
  closed: boolean
}

/** PasswordMessage, SASLInitialResponse and SASLResponse all start with `p`. */
const PASSWORD = 0x70

/** Whether a write (the first on its socket: the startup message) belongs to opening the connection. */
function isOpening(chunk: unknown, first: boolean): boolean {
  if (first) return true
  if (!(chunk instanceof Uint8Array)) return false
  return (
    chunk[0] === PASSWORD ||
    Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).includes(FETCH_TYPES)
  )
}

/**
 * Marks the round trips that open the connection: the same rule as the test kit's counter (a write
 * after data came back starts one), kept apart when the write is the startup message, an
 * authentication message or postgres.js's type query. Opening ends at the first round trip that is
 * none of these: later writes are not looked into (a flush's message is not scanned for the type
 * query's text, a cost the CPU cells would measure on every series, and an application's query
 * holding that text is not taken for it). Listens to data first among the listeners (a driver
 * answers an authentication request from inside its own listener); returns the function that wraps
 * `write`, to call once the test kit's counter has wrapped it, so this wrapper sees the same writes.
 */
function classify(socket: Socket, child: Child): () => void {
  let receivedSinceWrite = true
  let first = true
  let opened = false
  socket.prependListener('data', () => {
    receivedSinceWrite = true
  })
  return () => {
    const write = socket.write.bind(socket) as (...args: unknown[]) => boolean
    socket.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (receivedSinceWrite && !opened) {
        if (isOpening(chunk, first)) child.opening++
        else opened = true
      }
      first = false
      receivedSinceWrite = false
      return write(chunk, ...rest)
    }) as Socket['write']
  }
}

/**
 * The test kit's counter, one per connection: `read()` sums every connection, `perConnection()` lists
 * them with the round trips that opened them, so flushes running at the same time on a pool can be
 * checked against their reports (a connection opened by the pool for a reservation that another
 * connection served belongs to no flush).
 *
 * @example
 * const counter = createConnectionCounter()
 * const sql = postgres(url, { socket: counter.socket, max: 10 })
 * counter.reset()
 * await Promise.all([flushA(), flushB()])
 * counter.perConnection() // [{ roundTrips: 1, opening: 0 }, { roundTrips: 3, opening: 2 }]
 */
export function createConnectionCounter(): ConnectionCounter {
  const children = new Set<Child>()
  const add = (socket: Socket, counter: RoundTripCounter): Child => {
    const child: Child = { counter, opening: 0, closed: false }
    children.add(child)
    socket.once('close', () => {
      child.closed = true
    })
    return child
  }
  const read = (): RoundTripCount => {
    const sum = { roundTrips: 0, writes: 0, bytesOut: 0, bytesIn: 0, connections: 0 }
    for (const c of children) {
      const r = c.counter.read()
      sum.roundTrips += r.roundTrips
      sum.writes += r.writes
      sum.bytesOut += r.bytesOut
      sum.bytesIn += r.bytesIn
      sum.connections += r.connections
    }
    return sum
  }
  const reset = () => {
    for (const c of children) {
      if (c.closed) children.delete(c)
      else {
        c.counter.reset()
        c.opening = 0
      }
    }
  }
  return {
    async socket(options: SocketFactoryOptions) {
      const counter = createRoundTripCounter()
      const socket = await counter.socket(options) // connected, its write counted
      classify(socket, add(socket, counter))()
      return socket
    },
    stream() {
      const counter = createRoundTripCounter()
      const socket = counter.stream() // counted once connected: classify after that
      socket.once('connect', classify(socket, add(socket, counter)))
      return socket
    },
    read,
    reset,
    perConnection: () =>
      [...children].map((c) => ({ roundTrips: c.counter.read().roundTrips, opening: c.opening })),
    async measure(fn) {
      reset()
      const result = await fn()
      return { result, count: read() }
    },
  }
}
