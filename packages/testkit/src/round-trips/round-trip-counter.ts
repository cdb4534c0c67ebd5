import { Socket } from 'node:net'

/** What a counter has seen since its last reset. */
export interface RoundTripCount {
  /**
   * Times the client wrote after it had received data since its previous write (the first write after
   * a reset counts as one): the number of times it had to wait for the server.
   */
  readonly roundTrips: number
  /** `socket.write` calls. */
  readonly writes: number
  readonly bytesOut: number
  readonly bytesIn: number
  /** Sockets opened (connections made). */
  readonly connections: number
}

/**
 * Counts round trips at the socket, not with a clock. Pass `counter.socket` as postgres.js's `socket`
 * option: every connection the client opens goes through a wrapped TCP socket.
 *
 * @example
 * const counter = createRoundTripCounter()
 * const sql = postgres(url, { socket: counter.socket, max: 1 })
 * await sql`select 1`          // connects
 * counter.reset()
 * await sql`select 1`
 * counter.read().roundTrips    // 1
 */
export interface RoundTripCounter {
  /** postgres.js `socket` option: `postgres(url, { socket: counter.socket })`. */
  readonly socket: (options: SocketFactoryOptions) => Promise<Socket>
  /** node-postgres `stream` option (`new pg.Client({ stream: counter.stream })`): an unconnected socket. */
  readonly stream: () => Socket
  read(): RoundTripCount
  /** Starts counting from zero; the next write on any connection counts as a round trip. */
  reset(): void
  /** Runs `fn` and returns its result with what it cost. */
  measure<T>(fn: () => Promise<T>): Promise<{ result: T; count: RoundTripCount }>
}

/** The part of postgres.js's parsed options the factory uses. */
export interface SocketFactoryOptions {
  readonly host?: readonly (string | undefined)[] | string
  readonly port?: readonly (number | undefined)[] | number
  readonly path?: string | undefined
}

interface SocketState {
  receivedSinceWrite: boolean
}

export function createRoundTripCounter(): RoundTripCounter {
  let roundTrips = 0
  let writes = 0
  let bytesOut = 0
  let bytesIn = 0
  let connections = 0
  const states = new Set<SocketState>()

  const reset = () => {
    roundTrips = writes = bytesOut = bytesIn = 0
    for (const s of states) s.receivedSinceWrite = true
  }

  /**
   * Counts what goes through `s`; returns the function that puts the counting `write` on. Node
   * replaces `write` on a socket while it connects, so that must happen once connected, before the
   * driver writes.
   */
  const track = (s: Socket): (() => void) => {
    const state: SocketState = { receivedSinceWrite: true }
    states.add(state)
    connections++
    s.on('data', (d: Buffer) => {
      bytesIn += d.length
      state.receivedSinceWrite = true
    })
    s.once('close', () => states.delete(state))
    return () => {
      const write = s.write.bind(s) as (...args: unknown[]) => boolean
      s.write = ((chunk: unknown, ...rest: unknown[]) => {
        if (state.receivedSinceWrite) {
          roundTrips++
          state.receivedSinceWrite = false
        }
        writes++
        bytesOut += byteLength(chunk)
        return write(chunk, ...rest)
      }) as Socket['write']
    }
  }

  const socket = (options: SocketFactoryOptions): Promise<Socket> => {
    const host = first(options.host) ?? '127.0.0.1'
    const port = first(options.port) ?? 5432
    const s = new Socket()
    const wrapWrite = track(s)
    return new Promise((resolve, reject) => {
      s.once('error', reject)
      const done = () => {
        s.off('error', reject)
        wrapWrite()
        resolve(s)
      }
      if (options.path) s.connect(options.path, done)
      else s.connect(port, host, done)
    })
  }

  const stream = (): Socket => {
    const s = new Socket()
    s.once('connect', track(s))
    return s
  }

  return {
    socket,
    stream,
    read: () => ({ roundTrips, writes, bytesOut, bytesIn, connections }),
    reset,
    async measure(fn) {
      reset()
      const result = await fn()
      return { result, count: { roundTrips, writes, bytesOut, bytesIn, connections } }
    },
  }
}

function first<T>(v: readonly (T | undefined)[] | T | undefined): T | undefined {
  return Array.isArray(v) ? (v[0] as T | undefined) : (v as T | undefined)
}

function byteLength(chunk: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk)
  if (chunk instanceof Uint8Array) return chunk.byteLength
  return 0
}
