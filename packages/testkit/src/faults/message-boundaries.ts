/**
 * The offsets at which PostgreSQL protocol messages end in `bytes` (one direction of a connection,
 * from its first byte or from a message start): each message is a type byte and a 4-byte length,
 * except the startup-phase messages a client sends first (length, then a code: startup, SSL or
 * GSS request), and the one-byte answer to an SSL request. Stops at bytes it cannot frame (TLS).
 *
 * @example
 * messageBoundaries(bytesOfBeginAndCommit, { startup: false }) // [13, 27]
 */
export function messageBoundaries(bytes: Buffer, options: { readonly startup: boolean }): number[] {
  return messages(bytes, options).map((m) => m.end)
}

/** A protocol message found in a byte stream: its type byte (0 for startup-phase messages) and where it ends. */
export interface FramedMessage {
  readonly type: number
  readonly end: number
}

/**
 * The messages of `bytes` (see {@link messageBoundaries}), each with its type.
 *
 * @example
 * messages(bytes, { startup: false }).map((m) => String.fromCharCode(m.type)) // ['Q', ...]
 */
export function messages(bytes: Buffer, options: { readonly startup: boolean }): FramedMessage[] {
  const out: FramedMessage[] = []
  let i = 0
  if (options.startup) {
    // Client side: startup-phase messages have no type byte; an SSL request's answer is one byte.
    while (i + 8 <= bytes.length) {
      const length = bytes.readUInt32BE(i)
      const code = bytes.readUInt32BE(i + 4)
      if (code !== 196608 && code !== 80877103 && code !== 80877104 && code !== 196610) break
      i += length
      out.push({ type: 0, end: i })
      if (code === 196608 || code === 196610) break
    }
  }
  while (i + 5 <= bytes.length) {
    const type = bytes[i]!
    const length = bytes.readUInt32BE(i + 1)
    if (length < 4) break
    i += 1 + length
    if (i > bytes.length) break
    out.push({ type, end: i })
  }
  return out
}
