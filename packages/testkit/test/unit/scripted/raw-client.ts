import { connect, type Socket } from 'node:net'

/** A server message as the raw client read it: its type, body, and the fields tests read. */
export interface ServerMessage {
  readonly type: string
  readonly body: Buffer
  /** CommandComplete's tag, ReadyForQuery's status, ParameterStatus's `name=value`. */
  readonly text?: string
  /** ErrorResponse and NoticeResponse fields by letter. */
  readonly fields?: Readonly<Record<string, string>>
}

function frame(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts)
  const head = Buffer.alloc(5)
  head.write(type, 0, 'latin1')
  head.writeUInt32BE(body.length + 4, 1)
  return Buffer.concat([head, body])
}

const z = (s: string) => Buffer.from(`${s}\0`, 'utf8')
const i16 = (n: number) => Buffer.from([(n >> 8) & 255, n & 255])
const i32 = (n: number) => {
  const b = Buffer.alloc(4)
  b.writeInt32BE(n)
  return b
}

/** Client messages, encoded. */
export const client = {
  startup: (parameters: Record<string, string>): Buffer => {
    const body = Buffer.concat([
      i32(196608),
      ...Object.entries(parameters).flatMap(([k, v]) => [z(k), z(v)]),
      Buffer.from([0]),
    ])
    return Buffer.concat([i32(body.length + 4), body])
  },
  sslRequest: (): Buffer => Buffer.concat([i32(8), i32(80877103)]),
  query: (text: string): Buffer => frame('Q', z(text)),
  parse: (name: string, text: string): Buffer => frame('P', z(name), z(text), i16(0)),
  bind: (portal: string, statement: string, params: readonly (string | null)[] = []): Buffer =>
    frame(
      'B',
      z(portal),
      z(statement),
      i16(0),
      i16(params.length),
      ...params.map((p) =>
        p === null ? i32(-1) : Buffer.concat([i32(Buffer.byteLength(p)), Buffer.from(p)]),
      ),
      i16(0),
    ),
  describe: (target: 'S' | 'P', name: string): Buffer => frame('D', Buffer.from(target), z(name)),
  execute: (portal: string, maxRows = 0): Buffer => frame('E', z(portal), i32(maxRows)),
  sync: (): Buffer => frame('S'),
  flush: (): Buffer => frame('H'),
  copyData: (data: string): Buffer => frame('d', Buffer.from(data)),
  copyDone: (): Buffer => frame('c'),
  copyFail: (message: string): Buffer => frame('f', z(message)),
  terminate: (): Buffer => frame('X'),
}

/**
 * A client that speaks the protocol byte by byte, to check exactly what the scripted server answers.
 *
 * @example
 * const c = await RawClient.open(server.port)
 * c.send(client.query('select 1'))
 * const answer = await c.untilReady() // T, D, C, Z
 */
export class RawClient {
  readonly socket: Socket
  readonly received: ServerMessage[] = []
  /** Data chunks received (the server's writes, as they arrived). */
  chunks = 0
  #pending: Buffer = Buffer.alloc(0)
  #read = 0
  #waiters: (() => void)[] = []
  #closed = false
  readonly closed: Promise<string>

  private constructor(socket: Socket) {
    this.socket = socket
    socket.on('data', (d: Buffer) => {
      this.chunks++
      this.#pending = Buffer.concat([this.#pending, d])
      this.#frame()
      this.#notify()
    })
    this.closed = new Promise((resolve) => {
      socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'))
      socket.on('close', () => resolve('closed'))
    })
    void this.closed.then(() => {
      this.#closed = true
      this.#notify()
    })
  }

  /** Connects to 127.0.0.1:`port`; with `startup`, sends a StartupMessage and waits for ReadyForQuery. */
  static async open(
    port: number,
    startup: Record<string, string> | false = { user: 'u' },
  ): Promise<RawClient> {
    const socket = connect(port, '127.0.0.1')
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve)
      socket.once('error', reject)
    })
    const c = new RawClient(socket)
    if (startup !== false) {
      c.send(client.startup(startup))
      await c.untilReady()
    }
    return c
  }

  /** Writes `messages` in one write. */
  send(...messages: Buffer[]): void {
    this.socket.write(Buffer.concat(messages))
  }

  /** The messages received since the last call, up to and including the `count`-th ReadyForQuery. */
  async untilReady(count = 1): Promise<ServerMessage[]> {
    let seen = 0
    return this.#until((m) => m.type === 'Z' && ++seen === count)
  }

  /** The messages received since the last call, until the connection closed. */
  async untilClosed(): Promise<ServerMessage[]> {
    return this.#until(() => false)
  }

  /** Waits `ms` and returns what arrived since the last call. */
  async during(ms: number): Promise<ServerMessage[]> {
    await new Promise((resolve) => setTimeout(resolve, ms))
    const out = this.received.slice(this.#read)
    this.#read = this.received.length
    return out
  }

  end(): void {
    this.socket.destroy()
  }

  async #until(done: (m: ServerMessage) => boolean): Promise<ServerMessage[]> {
    for (;;) {
      for (let i = this.#read; i < this.received.length; i++) {
        if (done(this.received[i]!)) {
          const out = this.received.slice(this.#read, i + 1)
          this.#read = i + 1
          return out
        }
      }
      if (this.#closed) {
        const out = this.received.slice(this.#read)
        this.#read = this.received.length
        return out
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve))
    }
  }

  #notify(): void {
    const waiters = this.#waiters
    this.#waiters = []
    for (const w of waiters) w()
  }

  #frame(): void {
    let i = 0
    const b = this.#pending
    while (b.length - i >= 1) {
      if (b[i] === 78 && this.received.length === 0 && b.length - i === 1) {
        // the one-byte answer to an SSLRequest
        this.received.push({ type: 'N', body: Buffer.alloc(0), text: 'N' })
        i += 1
        continue
      }
      if (b.length - i < 5) break
      const length = b.readUInt32BE(i + 1)
      if (b.length - i < 1 + length) break
      const type = String.fromCharCode(b[i]!)
      const body = b.subarray(i + 5, i + 1 + length)
      this.received.push(describe(type, Buffer.from(body)))
      i += 1 + length
    }
    this.#pending = b.subarray(i)
  }
}

function describe(type: string, body: Buffer): ServerMessage {
  if (type === 'C') return { type, body, text: body.toString('utf8', 0, body.length - 1) }
  if (type === 'Z') return { type, body, text: body.toString('latin1') }
  if (type === 'S') return { type, body, text: body.toString('utf8', 0, body.length - 1).replace('\0', '=') }
  if (type === 'E' || type === 'N') {
    const fields: Record<string, string> = {}
    let at = 0
    while (at < body.length && body[at] !== 0) {
      const end = body.indexOf(0, at + 1)
      fields[String.fromCharCode(body[at]!)] = body.toString('utf8', at + 1, end)
      at = end + 1
    }
    return { type, body, fields }
  }
  return { type, body }
}

/** The messages as short strings: `C INSERT 0 1`, `Z I`, `E 23505`, else the type. */
export function brief(messages: readonly ServerMessage[]): string[] {
  return messages.map((m) =>
    m.type === 'C' || m.type === 'Z'
      ? `${m.type} ${m.text}`
      : m.type === 'E' || m.type === 'N'
        ? `${m.type} ${m.fields?.['C']}`
        : m.type,
  )
}
