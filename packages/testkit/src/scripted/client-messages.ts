import { type FramedMessage, STARTUP_CODES } from './frame-reader.ts'

/** A parameter of a Bind: text (format 0), bytes (format 1), or NULL. */
export type BoundValue = string | Buffer | null

/** A client message, decoded. */
export type ClientMessage =
  | { readonly type: 'StartupMessage'; readonly version: number; readonly parameters: Record<string, string> }
  | { readonly type: 'SSLRequest' }
  | { readonly type: 'GSSENCRequest' }
  | { readonly type: 'CancelRequest'; readonly processId: number; readonly secret: number }
  | { readonly type: 'Query'; readonly text: string }
  | {
      readonly type: 'Parse'
      readonly name: string
      readonly text: string
      readonly parameterTypes: readonly number[]
    }
  | {
      readonly type: 'Bind'
      readonly portal: string
      readonly statement: string
      readonly params: readonly BoundValue[]
      readonly resultFormats: readonly number[]
    }
  | { readonly type: 'Describe'; readonly target: 'S' | 'P'; readonly name: string }
  | { readonly type: 'Execute'; readonly portal: string; readonly maxRows: number }
  | { readonly type: 'Sync' }
  | { readonly type: 'Flush' }
  | { readonly type: 'Close'; readonly target: 'S' | 'P'; readonly name: string }
  | { readonly type: 'Terminate' }
  | { readonly type: 'CopyData'; readonly data: Buffer }
  | { readonly type: 'CopyDone' }
  | { readonly type: 'CopyFail'; readonly message: string }
  | { readonly type: 'Unknown'; readonly code: string }

/** The name of each message a client sends, by its type byte. */
export type ClientMessageType = ClientMessage['type']

/** Reads NUL-terminated strings and integers from a message body, in order. */
class BodyCursor {
  readonly #body: Buffer
  #at = 0

  constructor(body: Buffer) {
    this.#body = body
  }

  string(): string {
    const end = this.#body.indexOf(0, this.#at)
    const stop = end < 0 ? this.#body.length : end
    const s = this.#body.toString('utf8', this.#at, stop)
    this.#at = stop + 1
    return s
  }

  int16(): number {
    const v = this.#body.readInt16BE(this.#at)
    this.#at += 2
    return v
  }

  int32(): number {
    const v = this.#body.readInt32BE(this.#at)
    this.#at += 4
    return v
  }

  uint32(): number {
    const v = this.#body.readUInt32BE(this.#at)
    this.#at += 4
    return v
  }

  bytes(n: number): Buffer {
    const b = this.#body.subarray(this.#at, this.#at + n)
    this.#at += n
    return b
  }

  char(): string {
    return String.fromCharCode(this.#body[this.#at++] ?? 0)
  }
}

/**
 * Decodes a framed client message (see `FrameReader`).
 *
 * @example
 * decodeClientMessage(framed) // { type: 'Query', text: 'select 1' }
 */
export function decodeClientMessage(m: FramedMessage): ClientMessage {
  const c = new BodyCursor(m.body)
  switch (m.code) {
    case '':
      return startupMessage(c)
    case 'Q':
      return { type: 'Query', text: c.string() }
    case 'P': {
      const name = c.string()
      const text = c.string()
      const n = c.int16()
      const parameterTypes: number[] = []
      for (let i = 0; i < n; i++) parameterTypes.push(c.uint32())
      return { type: 'Parse', name, text, parameterTypes }
    }
    case 'B':
      return bind(c)
    case 'D':
      return { type: 'Describe', target: c.char() === 'P' ? 'P' : 'S', name: c.string() }
    case 'E':
      return { type: 'Execute', portal: c.string(), maxRows: c.int32() }
    case 'S':
      return { type: 'Sync' }
    case 'H':
      return { type: 'Flush' }
    case 'C':
      return { type: 'Close', target: c.char() === 'P' ? 'P' : 'S', name: c.string() }
    case 'X':
      return { type: 'Terminate' }
    case 'd':
      return { type: 'CopyData', data: m.body }
    case 'c':
      return { type: 'CopyDone' }
    case 'f':
      return { type: 'CopyFail', message: c.string() }
    default:
      return { type: 'Unknown', code: m.code }
  }
}

function startupMessage(c: BodyCursor): ClientMessage {
  const code = c.uint32()
  if (code === STARTUP_CODES.ssl) return { type: 'SSLRequest' }
  if (code === STARTUP_CODES.gssEncryption) return { type: 'GSSENCRequest' }
  if (code === STARTUP_CODES.cancel)
    return { type: 'CancelRequest', processId: c.uint32(), secret: c.uint32() }
  const parameters: Record<string, string> = {}
  for (;;) {
    const key = c.string()
    if (key === '') break
    parameters[key] = c.string()
  }
  return { type: 'StartupMessage', version: code, parameters }
}

function bind(c: BodyCursor): ClientMessage {
  const portal = c.string()
  const statement = c.string()
  const formatCount = c.int16()
  const formats: number[] = []
  for (let i = 0; i < formatCount; i++) formats.push(c.int16())
  const n = c.int16()
  const params: BoundValue[] = []
  for (let i = 0; i < n; i++) {
    const length = c.int32()
    if (length < 0) {
      params.push(null)
      continue
    }
    const bytes = Buffer.from(c.bytes(length))
    const format = formats.length === 1 ? formats[0] : (formats[i] ?? 0)
    params.push(format === 1 ? bytes : bytes.toString('utf8'))
  }
  const resultCount = c.int16()
  const resultFormats: number[] = []
  for (let i = 0; i < resultCount; i++) resultFormats.push(c.int16())
  return { type: 'Bind', portal, statement, params, resultFormats }
}
