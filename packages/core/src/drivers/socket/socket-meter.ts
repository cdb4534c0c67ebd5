import type { Duplex } from 'node:stream'

/**
 * Round trips counted on one socket: each time the client writes after it received data since its
 * previous write (its first write counts as one), it had to wait for the server. The TCP handshake is
 * not a write and is not counted. The same rule as the test kit's round-trip counter, so a flush's
 * report can be checked against it.
 *
 * The meter also reads the first messages the server sends (only their type byte and length) to learn
 * the connection's cancel key (BackendKeyData: process id and secret), which identifies the connection
 * to a driver that does not expose its socket, whether the startup finished (first ReadyForQuery), and
 * the parameters the server reported during the startup (ParameterStatus), which an {@link Admission}
 * may judge the connection by. Behind TLS it sees the handshake and stops reading (the bytes are encrypted), unless it is given the
 * decrypted stream (`readDecrypted`).
 */
export interface SocketMeter {
  /** Round trips so far. */
  readonly roundTrips: number
  /** Bytes the client wrote, and received, so far. */
  readonly bytesOut: number
  readonly bytesIn: number
  /** `performance.now()` when the meter was put on the socket (about when the connection opened). */
  readonly createdAt: number
  /** `pid:secret` of the cancel key the server sent, once seen. */
  readonly key: string | undefined
  /** The server finished the startup (authentication included) and is ready for queries. */
  readonly ready: boolean
  /** The parameters the server reported during the startup (ParameterStatus), by name. */
  readonly parameters: ReadonlyMap<string, string>
  /** The server answered `N` to the SSLRequest (it has no TLS) and the driver started TLS anyway. */
  readonly tlsRefused: boolean
  /**
   * The error the server answered during the startup (a refused password, 28P01; a database that does
   * not exist, 3D000), as it read in the clear: its message and SQLSTATE.
   */
  readonly startupError: { readonly message: string; readonly sqlState: string } | undefined
  /** The socket ended: it errored or closed (`closeError` holds its first error, if any). */
  readonly closed: boolean
  readonly closeError: Error | undefined
  /**
   * Calls `listener` once when the socket ends, at its first `error` or `close` (at once if it has).
   * Returns how to stop listening.
   */
  onClose(listener: () => void): () => void
  /** Calls `listener` once when the server is first ready for queries (at once if it was). */
  onReady(listener: () => void): void
  /**
   * Reads the server's first messages (cancel key, readiness) from `decrypted`, the TLS socket over
   * this one, and ends with it (its first `error` or `close`): a driver that upgrades a socket to TLS
   * may take every listener off it, the meter's too. Round trips and bytes are still counted here.
   */
  readDecrypted(decrypted: Duplex): void
  /**
   * Calls `listener` once the meter can tell no more of the opening: the server is ready for queries,
   * or encryption began (TLS, GSS) and `ready` stays false. At once if so.
   */
  onOpeningSeen(listener: () => void): void
  /**
   * Calls `listener` once when `roundTrips` reaches `count` (at once if it has). Returns how to stop
   * listening.
   */
  onRoundTrips(count: number, listener: () => void): () => void
  /**
   * The statements the server completed (CommandComplete) answering the simple-protocol Query message
   * written last, so far; undefined before one was written, or when its answer could not be read
   * (encrypted without `readDecrypted`, or not a message stream). Meaningful while that message is the
   * only query in flight on the connection, as a flush's is: a failed statement is the next one.
   * Always undefined on a meter made without `countCompleted`.
   */
  readonly completedInQuery: number | undefined
}

/** SSLRequest's code (a startup-phase message without a type byte). */
const SSL_REQUEST_CODE = 80877103
/** GSSENCRequest's code. */
const GSS_REQUEST_CODE = 80877104

type Write = (chunk: unknown, ...rest: unknown[]) => boolean

/**
 * Judges a connection when its startup is over (the server's first ReadyForQuery), by the parameters
 * the server reported: an error refuses it. The meter then destroys the socket with that error (the
 * decrypted one too) before any other data listener sees the ReadyForQuery, and the connection never
 * counts as ready: its attempt failed, for that reason.
 */
export type Admission = (parameters: ReadonlyMap<string, string>) => Error | undefined

/**
 * Puts a meter on `socket`: wraps its `write` and listens to its data. Call it before the driver writes
 * anything to count the connection's opening; later, to count from then on. `admit` judges the
 * connection at the end of its startup (see {@link Admission}). `countCompleted`: it counts the
 * statements each simple message's answer completes (see `completedInQuery`).
 *
 * The socket sees every message whatever the driver: the one source of `report.roundTrips`.
 */
export function meterSocket(socket: Duplex, admit?: Admission, countCompleted = false): SocketMeter {
  let receivedSinceWrite = true
  let roundTrips = 0
  let bytesOut = 0
  let bytesIn = 0
  let firstWrite = true
  /** Reading the server's first messages: 'ssl' awaits the one-byte answer to SSLRequest. */
  let reading: 'ssl' | 'messages' | 'done' = 'messages'
  /** The messages are read from the decrypted stream (see `readDecrypted`). */
  let decrypting = false
  /** The server answered the SSLRequest with `N`. */
  let answeredNo = false
  let pending: Buffer | undefined
  let key: string | undefined
  const parameters = new Map<string, string>()
  let ready = false
  let startupError: { readonly message: string; readonly sqlState: string } | undefined
  let decryptedStream: Duplex | undefined
  let closed = false
  let closeError: Error | undefined
  const listeners = new Set<() => void>()
  const readyListeners: (() => void)[] = []
  const seenListeners: (() => void)[] = []
  const tripListeners = new Set<{ readonly count: number; readonly listener: () => void }>()

  const readMessages = (data: Buffer) => {
    let buffer = pending === undefined ? data : Buffer.concat([pending, data])
    pending = undefined
    if (reading === 'ssl') {
      reading = buffer[0] === 0x53 ? 'done' : 'messages' // 'S': TLS follows; 'N': plain messages
      answeredNo = buffer[0] === 0x4e
      buffer = buffer.subarray(1)
      if (reading === 'done') {
        // The driver may hand over the decrypted stream within the microtasks that follow (it starts
        // TLS as it reads this answer); else the meter can tell no more of the opening.
        setImmediate(() => {
          if (!decrypting) for (const listener of seenListeners.splice(0)) listener()
        })
        return
      }
    }
    while (buffer.length >= 5) {
      const type = buffer[0]
      const length = buffer.readUInt32BE(1)
      if (buffer.length < length + 1) break
      if (type === 0x4b && length >= 12) key = cancelKey(buffer, length)
      if (type === 0x53) readParameter(buffer, length, parameters)
      if (type === 0x45) startupError ??= errorFields(buffer, length)
      if (type === 0x5a) {
        const refusal = admit?.(parameters)
        if (refusal !== undefined) return refuse(refusal)
        ready = true
        reading = 'done'
        for (const listener of readyListeners.splice(0)) listener()
        for (const listener of seenListeners.splice(0)) listener()
        return
      }
      buffer = buffer.subarray(length + 1)
    }
    if (buffer.length > 0) pending = Buffer.from(buffer)
  }

  // The socket ends at its first 'error' or 'close'. A driver may reject its queries at the 'error'
  // (postgres.js does) and handle the 'close' only in a later macrotask: a caller that reacts to the
  // rejection must already see the socket as ended, or it would write to (or hand back to its pool) a
  // connection about to close.
  const end = () => {
    if (closed) return
    closed = true
    for (const listener of [...listeners]) listener()
    listeners.clear()
  }
  socket.once('close', end)
  socket.on('error', (error: Error) => {
    closeError ??= error
    end()
  })

  /** The startup is over and `admit` refused the connection: it ends, for that reason. */
  const refuse = (error: Error) => {
    reading = 'done'
    closeError ??= error
    for (const listener of seenListeners.splice(0)) listener()
    decryptedStream?.destroy(error)
    socket.destroy(error)
    end()
  }

  /** Counts a write of `chunk`: a round trip when the server sent something since the last one. */
  const counted = (chunk: unknown) =>
    countWrite(
      typeof chunk === 'string'
        ? Buffer.byteLength(chunk)
        : chunk instanceof Uint8Array
          ? chunk.byteLength
          : 0,
    )
  const countWrite = (bytes: number) => {
    bytesOut += bytes
    if (!receivedSinceWrite) return
    roundTrips++
    receivedSinceWrite = false
    for (const waiting of tripListeners) {
      if (roundTrips < waiting.count) continue
      tripListeners.delete(waiting)
      waiting.listener()
    }
  }
  /** Data from the server: the next write starts a round trip. */
  const received = (data: Buffer) => {
    receivedSinceWrite = true
    bytesIn += data.length
    if (reading !== 'done') readMessages(data)
  }

  const answer = countCompleted ? completionCounter() : NO_COUNT
  // First among the data listeners: a driver answers some messages from inside its own listener (an
  // authentication step), and that write must see the data that prompted it. The messages are this
  // socket's until it is encrypted; then the decrypted stream's (see `readDecrypted`).
  socket.prependListener('data', (data: Buffer) => {
    received(data)
    if (answer.reading && decryptedStream === undefined) answer.read(data)
  })

  const write = socket.write.bind(socket) as Write
  socket.write = ((chunk: unknown, ...rest: unknown[]) => {
    counted(chunk)
    answer.wrote(chunk, decrypting)
    if (firstWrite) {
      firstWrite = false
      const code = startupCode(chunk)
      if (code === SSL_REQUEST_CODE) reading = 'ssl'
      else if (code === GSS_REQUEST_CODE) {
        reading = 'done'
        for (const listener of seenListeners.splice(0)) listener()
      }
    }
    return write(chunk, ...rest)
  }) as Duplex['write']

  return {
    get roundTrips() {
      return roundTrips
    },
    get bytesOut() {
      return bytesOut
    },
    get bytesIn() {
      return bytesIn
    },
    createdAt: performance.now(),
    get key() {
      return key
    },
    get ready() {
      return ready
    },
    parameters,
    get startupError() {
      return startupError
    },
    get tlsRefused() {
      return answeredNo && decrypting
    },
    get closed() {
      return closed
    },
    get closeError() {
      return closeError
    },
    onReady(listener) {
      if (ready) listener()
      else readyListeners.push(listener)
    },
    readDecrypted(decrypted) {
      decrypting = true
      decryptedStream = decrypted
      if (!ready) {
        reading = 'messages'
        pending = undefined
      }
      // The handshake's records are written and read by TLS itself, out of sight: its round trips are
      // added once it is over (see `handshakeRoundTrips`), before the driver's first write over it.
      decrypted.prependOnceListener('secureConnect', () => {
        roundTrips += handshakeRoundTrips(decrypted)
        receivedSinceWrite = true
      })
      decrypted.prependListener('data', (data: Buffer) => {
        received(data)
        if (answer.reading) answer.read(data)
      })
      // What the driver wrote over TLS before it was handed here (node-postgres writes its startup
      // message as soon as it made the TLS socket): one write.
      const early = (decrypted as Duplex & { bytesWritten?: number }).bytesWritten ?? 0
      if (early > 0) countWrite(early)
      const writeDecrypted = decrypted.write.bind(decrypted) as Write
      decrypted.write = ((chunk: unknown, ...rest: unknown[]) => {
        counted(chunk)
        answer.wrote(chunk, false)
        return writeDecrypted(chunk, ...rest)
      }) as Duplex['write']
      decrypted.once('close', end)
      decrypted.on('error', (error: Error) => {
        closeError ??= error
        end()
      })
    },
    onOpeningSeen(listener) {
      if (reading === 'done') listener()
      else seenListeners.push(listener)
    },
    onRoundTrips(count, listener) {
      if (roundTrips >= count) {
        listener()
        return () => {}
      }
      const waiting = { count, listener }
      tripListeners.add(waiting)
      return () => tripListeners.delete(waiting)
    },
    get completedInQuery() {
      return answer.completed
    },
    onClose(listener) {
      if (closed) {
        listener()
        return () => {}
      }
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}

/** What a meter that counts no completed statements has instead of a counter. */
const NO_COUNT = { completed: undefined, reading: false, wrote() {}, read() {} }

/** The type bytes of the messages a completion counter reads (see {@link completionCounter}). */
const QUERY = 0x51 // 'Q'
const COMMAND_COMPLETE = 0x43 // 'C'
const READY_FOR_QUERY = 0x5a // 'Z'
const COPY_DATA = 0x64 // 'd'
const COPY_DONE = 0x63 // 'c'
const COPY_FAIL = 0x66 // 'f'

/**
 * Counts the CommandComplete messages of the answer to the simple-protocol Query message written last:
 * `wrote` sees each write (a chunk starting with `Q` starts a count, one of COPY data goes on with it,
 * any other makes it unknown; `encrypted`: the chunk is TLS records, not messages), `read` each chunk of the server's messages while `reading` (the answer's
 * ReadyForQuery ends it). Only the type byte and length of each message are read; a chunk that is no
 * message stream (a type byte that is no letter, a length below 4) ends the count, unknown.
 */
function completionCounter() {
  let completed: number | undefined
  let reading = false
  /** Bytes of the current message's body still to come. */
  let skip = 0
  /** The bytes of a message header (type, length) split across chunks. */
  let header: number[] = []
  const stop = (known: boolean) => {
    reading = false
    if (!known) completed = undefined
  }
  return {
    get completed() {
      return completed
    },
    get reading() {
      return reading
    },
    wrote(chunk: unknown, encrypted: boolean) {
      if (encrypted) return
      const first = chunk instanceof Uint8Array && chunk.byteLength > 0 ? chunk[0] : undefined
      // A COPY's data, written as the server asks for it, belongs to the Query's answer.
      if (first === COPY_DATA || first === COPY_DONE || first === COPY_FAIL) return
      const query = first === QUERY
      completed = query ? 0 : undefined
      reading = query
      skip = 0
      header = []
    },
    read(data: Buffer) {
      let i = 0
      while (i < data.length) {
        if (skip > 0) {
          const taken = Math.min(skip, data.length - i)
          skip -= taken
          i += taken
          continue
        }
        let type: number
        let length: number
        if (header.length === 0 && i + 5 <= data.length) {
          type = data[i]!
          length = data.readUInt32BE(i + 1)
          i += 5
        } else {
          while (header.length < 5 && i < data.length) header.push(data[i++]!)
          if (header.length < 5) return
          type = header[0]!
          length = ((header[1]! << 24) | (header[2]! << 16) | (header[3]! << 8) | header[4]!) >>> 0
          header = []
        }
        const letter = (type >= 0x41 && type <= 0x5a) || (type >= 0x61 && type <= 0x7a)
        if (!letter || length < 4) return stop(false)
        if (type === COMMAND_COMPLETE) completed = (completed ?? 0) + 1
        if (type === READY_FOR_QUERY) return stop(true)
        skip = length - 4
      }
    },
  }
}

/**
 * `pid:secret` of a BackendKeyData message (both unsigned; a secret longer than 4 bytes, as protocol
 * 3.2 allows, in hex): the form {@link cancelKeyOf} gives for a driver's own values.
 */
function cancelKey(message: Buffer, length: number): string {
  const secret =
    length === 12 ? String(message.readUInt32BE(9)) : message.subarray(9, length + 1).toString('hex')
  return `${message.readUInt32BE(5)}:${secret}`
}

/**
 * The key a meter reports for a connection whose driver exposes its cancel key as numbers.
 *
 * Meters are found by cancel key: the driver's numbers written as the meter reads the key off the wire.
 */
export function cancelKeyOf(pid: number, secret: number): string {
  return `${pid >>> 0}:${secret >>> 0}`
}

/** Notes the name and value of a ParameterStatus message (`name\0value\0`) in `into`. */
function readParameter(message: Buffer, length: number, into: Map<string, string>): void {
  const body = message.subarray(5, length + 1)
  const nul = body.indexOf(0)
  if (nul < 0) return
  const end = body.indexOf(0, nul + 1)
  into.set(body.toString('utf8', 0, nul), body.toString('utf8', nul + 1, end < 0 ? body.length : end))
}

/** The request code of a startup-phase message (bytes 4..8), or undefined. */
function startupCode(chunk: unknown): number | undefined {
  if (!(chunk instanceof Uint8Array) || chunk.byteLength < 8) return undefined
  return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).readUInt32BE(4)
}

/**
 * The groups whose key shares Node's TLS client sends in its first ClientHello by default (OpenSSL's
 * defaults: X25519, and from OpenSSL 3.5 the hybrid X25519MLKEM768 beside it). A TLS 1.3 handshake
 * that agreed on another group (a server asking for P-256 only, as PostgreSQL up to 17 does by
 * default with `ssl_ecdh_curve = prime256v1`) took a HelloRetryRequest: a second ClientHello. The
 * TLS socket does not say which groups its client was configured with: one given `ecdhCurve` whose
 * first group is the server's (P-256 against P-256) took none, and is counted one round trip too many.
 */
const FIRST_KEY_SHARES = /^X25519/i

/**
 * The round trips of a TLS handshake that is over: ClientHello and the server's answer (one), a
 * second ClientHello after a HelloRetryRequest (TLS 1.3, a group other than the first key shares'),
 * or a full TLS 1.2 handshake's second (not a resumed session's).
 */
function handshakeRoundTrips(decrypted: Duplex): number {
  const tls = decrypted as Duplex & {
    getProtocol?(): string | null
    isSessionReused?(): boolean
    getEphemeralKeyInfo?(): { readonly name?: string } | null
  }
  const protocol = tls.getProtocol?.()
  if (protocol === 'TLSv1.2') return tls.isSessionReused?.() === true ? 1 : 2
  if (protocol !== 'TLSv1.3') return 1
  const group = tls.getEphemeralKeyInfo?.()?.name
  return group !== undefined && !FIRST_KEY_SHARES.test(group) ? 2 : 1
}

/** The message and SQLSTATE of the ErrorResponse at the start of `buffer`, its length `length`. */
function errorFields(
  buffer: Buffer,
  length: number,
): { readonly message: string; readonly sqlState: string } {
  let message = 'the server refused the connection'
  let sqlState = ''
  let f = 5
  const end = length + 1
  while (f < end && buffer[f] !== 0) {
    const zero = buffer.indexOf(0, f + 1)
    if (zero < 0 || zero >= end) break
    if (buffer[f] === 0x4d) message = buffer.toString('utf8', f + 1, zero)
    else if (buffer[f] === 0x43) sqlState = buffer.toString('latin1', f + 1, zero)
    f = zero + 1
  }
  return { message, sqlState }
}
