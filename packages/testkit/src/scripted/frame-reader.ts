/** Codes of the startup-phase messages a client sends before its StartupMessage is accepted. */
export const STARTUP_CODES = {
  protocol3: 196608,
  ssl: 80877103,
  gssEncryption: 80877104,
  cancel: 80877102,
} as const

/**
 * A client message cut out of the byte stream: its type byte (`''` for the startup-phase messages,
 * which have none), its body (after the length), and where it lies in the connection's stream.
 */
export interface FramedMessage {
  /** The type byte as a character (`'Q'`, `'P'`...), `''` for a startup-phase message. */
  readonly code: string
  readonly body: Buffer
  /** Offset of its first byte in what the connection received. */
  readonly start: number
  /** Offset just past its last byte. */
  readonly end: number
}

/**
 * Cuts a client's byte stream into protocol messages: startup-phase messages (length, then a code:
 * StartupMessage, SSLRequest, GSSENCRequest, CancelRequest) until a StartupMessage, then typed ones
 * (a type byte and a 4-byte length). Bytes of an incomplete message are kept for the next chunk.
 *
 * @example
 * const reader = new FrameReader()
 * reader.push(chunk).map((m) => m.code) // ['', 'Q'] for a startup message and a query in one chunk
 */
export class FrameReader {
  #pending: Buffer = Buffer.alloc(0)
  /** Offset of `#pending`'s first byte in the stream. */
  #offset = 0
  #startup = true

  /** Whether the reader still expects startup-phase messages (no StartupMessage yet). */
  get inStartup(): boolean {
    return this.#startup
  }

  /** The complete messages `chunk` ends (with bytes held from earlier chunks). */
  push(chunk: Buffer): FramedMessage[] {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk])
    const out: FramedMessage[] = []
    let i = 0
    for (;;) {
      const rest = this.#pending.length - i
      if (this.#startup) {
        if (rest < 8) break
        const length = this.#pending.readUInt32BE(i)
        if (length < 8 || rest < length) break
        const code = this.#pending.readUInt32BE(i + 4)
        out.push(this.#message('', i + 4, i + length, i))
        if (code !== STARTUP_CODES.ssl && code !== STARTUP_CODES.gssEncryption) this.#startup = false
        i += length
        continue
      }
      if (rest < 5) break
      const length = this.#pending.readUInt32BE(i + 1)
      if (length < 4 || rest < 1 + length) break
      out.push(this.#message(String.fromCharCode(this.#pending[i]!), i + 5, i + 1 + length, i))
      i += 1 + length
    }
    this.#pending = this.#pending.subarray(i)
    this.#offset += i
    return out
  }

  #message(code: string, bodyStart: number, end: number, start: number): FramedMessage {
    return {
      code,
      body: Buffer.from(this.#pending.subarray(bodyStart, end)),
      start: this.#offset + start,
      end: this.#offset + end,
    }
  }
}
