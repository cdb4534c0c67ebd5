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
 * With a multi-host URL, `socket` tries the hosts as postgres.js does with a socket of its own: from
 * the first, on to the next when one refuses the connection or does not answer within
 * `connect_timeout`; and when the client closes a connection right after its startup, before any
 * query (postgres.js does so when the server does not fit `target_session_attrs`), the next
 * connection starts at the host after that one, as postgres.js's next attempt for that connection
 * would (behind TLS the counter cannot tell, and starts at the first host).
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
  readonly path?: string | false | undefined
  /** Seconds to wait for each host to accept the connection (postgres.js's `connect_timeout`). */
  readonly connect_timeout?: number | undefined
}

interface SocketState {
  receivedSinceWrite: boolean
  /** The client has written only its startup (and authentication) messages so far. */
  opening: boolean
}

/** First bytes of the client's startup-phase writes: a startup or SSLRequest (its length), a password. */
const OPENING_BYTES: ReadonlySet<number> = new Set([0x00, 0x70])
/** Terminate ('X'): the client ends the connection. */
const TERMINATE = 0x58

export function createRoundTripCounter(): RoundTripCounter {
  let roundTrips = 0
  let writes = 0
  let bytesOut = 0
  let bytesIn = 0
  let connections = 0
  const states = new Set<SocketState>()
  /** Where the next connection starts among a multi-host URL's hosts (see `socket`). */
  let nextStart = 0

  const reset = () => {
    roundTrips = writes = bytesOut = bytesIn = 0
    for (const s of states) s.receivedSinceWrite = true
  }

  /**
   * Counts what goes through `s`; returns the function that puts the counting `write` on. Node
   * replaces `write` on a socket while it connects, so that must happen once connected, before the
   * driver writes.
   */
  const track = (s: Socket, onEndedAtStartup: () => void = () => {}): (() => void) => {
    const state: SocketState = { receivedSinceWrite: true, opening: true }
    /** Follows the client's startup-phase writes: a Terminate among them ends the connection unused. */
    const opening = (chunk: unknown) => {
      if (!state.opening) return
      const first = chunk instanceof Uint8Array && chunk.byteLength > 0 ? chunk[0]! : -1
      if (first === TERMINATE) onEndedAtStartup()
      if (!OPENING_BYTES.has(first)) state.opening = false
    }
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
        opening(chunk)
        return write(chunk, ...rest)
      }) as Socket['write']
      // postgres.js ends a connection with `socket.end(Terminate)`, whose chunk does not go through
      // `write`: not counted (the connection ends), only read.
      const end = s.end.bind(s) as (...args: unknown[]) => Socket
      s.end = ((...args: unknown[]) => {
        if (args[0] instanceof Uint8Array) opening(args[0])
        return end(...args)
      }) as Socket['end']
    }
  }

  /** A counted socket connected to `to`, within `seconds` (0: no limit). */
  const connectTo = (
    to: { readonly path: string } | { readonly host: string; readonly port: number },
    seconds: number,
    onEndedAtStartup?: () => void,
  ): Promise<Socket> => {
    const s = new Socket()
    const wrapWrite = track(s, onEndedAtStartup)
    return new Promise((resolve, reject) => {
      const fail = (error: Error) => {
        clearTimeout(timer)
        s.destroy()
        reject(error)
      }
      const timer =
        seconds > 0
          ? setTimeout(
              () => fail(Object.assign(new Error('connect timeout'), { code: 'CONNECT_TIMEOUT' })),
              seconds * 1000,
            )
          : undefined
      s.once('error', fail)
      const done = () => {
        clearTimeout(timer)
        s.off('error', fail)
        wrapWrite()
        resolve(s)
      }
      if ('path' in to) s.connect(to.path, done)
      else s.connect(to.port, to.host, done)
    })
  }

  const socket = async (options: SocketFactoryOptions): Promise<Socket> => {
    const seconds = Number(options.connect_timeout ?? 0) || 0
    if (options.path) return connectTo({ path: options.path }, seconds)
    const hosts = list(options.host)
    const ports = list(options.port)
    const count = Math.max(1, hosts.length)
    const start = nextStart % count
    nextStart = 0
    let last: unknown
    for (let i = 0; i < count; i++) {
      const index = (start + i) % count
      const host = hosts[index] ?? '127.0.0.1'
      const port = ports[index] ?? ports[0] ?? 5432
      try {
        return await connectTo({ host, port }, seconds, () => {
          nextStart = (index + 1) % count
        })
      } catch (e) {
        last = e
      }
    }
    throw last
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

/** An option that is a list (postgres.js's parsed hosts and ports) or one value, as a list. */
function list<T>(v: readonly (T | undefined)[] | T | undefined): readonly (T | undefined)[] {
  return Array.isArray(v) ? (v as readonly (T | undefined)[]) : v === undefined ? [] : [v as T]
}

function byteLength(chunk: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk)
  if (chunk instanceof Uint8Array) return chunk.byteLength
  return 0
}
