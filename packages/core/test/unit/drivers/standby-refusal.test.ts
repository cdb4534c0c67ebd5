import { connect, createServer, type Server, type Socket } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PostgresJsOptions } from '../../../src/drivers/postgres-js/client-types.ts'
import { socketFactory } from '../../../src/drivers/postgres-js/socket-factory.ts'
import { Meters } from '../../../src/drivers/socket/meters.ts'

// pipeflush's postgres.js socket factory against two stand-in servers on loopback that answer any
// startup as PostgreSQL 14+ does once authenticated: ParameterStatus (in_hot_standby and
// default_transaction_read_only among them), BackendKeyData, ReadyForQuery, in one chunk. The test
// plays postgres.js: it asks the factory for a socket, listens to its data, writes a startup.

/** A server message: type byte, length, body. */
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5)
  head.write(type, 0)
  head.writeUInt32BE(body.length + 4, 1)
  return Buffer.concat([head, body])
}
const parameter = (name: string, value: string) => message('S', Buffer.from(`${name}\0${value}\0`))
const KEY = message('K', Buffer.from([0, 0, 0, 42, 0, 0, 0, 7]))
const READY = message('Z', Buffer.from('I'))

const servers: Server[] = []
const accepted: Socket[] = []
/** A stand-in server reporting `in_hot_standby`; its port. */
async function standIn(inHotStandby: 'on' | 'off'): Promise<number> {
  const server = createServer((socket) => {
    accepted.push(socket)
    socket.on('error', () => {})
    socket.once('data', () =>
      socket.write(
        Buffer.concat([
          parameter('default_transaction_read_only', 'off'),
          parameter('in_hot_standby', inHotStandby),
          KEY,
          READY,
        ]),
      ),
    )
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}

let standbyPort = 0
let primaryPort = 0
beforeAll(async () => {
  standbyPort = await standIn('on')
  primaryPort = await standIn('off')
})
afterAll(async () => {
  for (const socket of accepted) socket.destroy()
  for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()))
})

/** postgres.js's parsed options for these hosts. */
function options(ports: number[], attrs: string | null): PostgresJsOptions {
  return {
    host: ports.map(() => '127.0.0.1'),
    port: ports,
    connect_timeout: 2,
    target_session_attrs: attrs,
  }
}

/** What one connection attempt came to, as postgres.js would see it. */
interface Attempt {
  readonly port: unknown
  /** The data postgres.js's listener was handed. */
  readonly handed: Buffer[]
  readonly error: (Error & { code?: string }) | undefined
  readonly ready: boolean
  readonly roundTrips: number
}

/** One connection attempt through `factory`, played as postgres.js plays it, until the server answered. */
async function attempt(
  factory: ReturnType<typeof socketFactory>,
  meters: Meters,
  o: PostgresJsOptions,
): Promise<Attempt> {
  const socket = await factory(o)
  const handed: Buffer[] = []
  let error: (Error & { code?: string }) | undefined
  socket.on('data', (d: Buffer) => handed.push(d))
  socket.on('error', (e: Error) => {
    error = e
  })
  const m = meters.of(socket)!
  const startup = Buffer.alloc(8)
  startup.writeUInt32BE(8, 0)
  startup.writeUInt32BE(196608, 4)
  socket.write(startup)
  await new Promise<void>((resolve) => {
    m.meter.onReady(resolve)
    m.meter.onClose(resolve)
  })
  await new Promise((resolve) => setImmediate(resolve))
  const result = {
    port: (socket as Socket & { port?: unknown }).port,
    handed,
    error,
    ready: m.meter.ready,
    roundTrips: m.meter.roundTrips,
  }
  socket.destroy()
  return result
}

/** A factory metering its sockets as the adapter does. */
function metered(): { factory: ReturnType<typeof socketFactory>; meters: Meters } {
  const meters = new Meters()
  const factory = socketFactory(
    undefined,
    (socket, admit) =>
      meters.add(socket, `127.0.0.1:${String((socket as Socket & { port?: unknown }).port)}`, true, 0, admit)
        .meter,
  )
  return { factory, meters }
}

describe('postgres.js socket factory, target_session_attrs=read-write', () => {
  it('refuses a connection to a hot standby before postgres.js sees it ready; the next attempt goes on to the primary, and later ones start there', async () => {
    const { factory, meters } = metered()
    const o = options([standbyPort, primaryPort], 'read-write')

    const first = await attempt(factory, meters, o)
    expect(first.port).toBe(standbyPort)
    expect(first.ready).toBe(false)
    expect(first.error?.code).toBe('SERVER_NOT_WRITABLE')
    expect(first.error?.message).toMatch(/in recovery/)
    expect(first.handed, 'postgres.js is handed nothing of the ready answer').toEqual([])
    expect(meters.failures).toBe(1)
    expect(meters.lastFailure?.reason).toMatch(/in recovery.*target_session_attrs=read-write/)

    const second = await attempt(factory, meters, o)
    expect(second.port).toBe(primaryPort)
    expect(second.ready).toBe(true)
    expect(second.error).toBeUndefined()
    expect(Buffer.concat(second.handed).includes(READY)).toBe(true)

    const third = await attempt(factory, meters, o)
    expect(third.port, 'the standby is tried last from then on').toBe(primaryPort)
    expect(third.ready).toBe(true)
  })

  it('primary first: every connection goes to the primary, at no round trip more than the startup', async () => {
    const { factory, meters } = metered()
    const o = options([primaryPort, standbyPort], 'read-write')
    for (let i = 0; i < 3; i++) {
      const a = await attempt(factory, meters, o)
      expect(a.port).toBe(primaryPort)
      expect(a.ready).toBe(true)
      expect(a.roundTrips).toBe(1)
    }
    expect(meters.failures).toBe(0)
  })

  it('one host, a standby: the connection is refused (as libpq refuses it)', async () => {
    const { factory, meters } = metered()
    const a = await attempt(factory, meters, options([standbyPort], 'read-write'))
    expect(a.ready).toBe(false)
    expect(a.error?.code).toBe('SERVER_NOT_WRITABLE')
  })
})

describe('postgres.js socket factory, without target_session_attrs', () => {
  it('every connection starts at the first host of the URL, which serves whatever it is', async () => {
    const { factory, meters } = metered()
    const o = options([standbyPort, primaryPort], null)
    for (let i = 0; i < 3; i++) {
      const a = await attempt(factory, meters, o)
      expect(a.port).toBe(standbyPort)
      expect(a.ready).toBe(true)
    }
  })

  it('a host that refuses the connection is skipped for the next', async () => {
    const { factory, meters } = metered()
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as { port: number }).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const a = await attempt(factory, meters, options([port, primaryPort], null))
    expect(a.port).toBe(primaryPort)
    expect(a.ready).toBe(true)
  })
})

// A host whose connections close during their startup (a crashing server, a proxy whose backend is
// gone, a reset during SCRAM or TLS) made every attempt go to it again, the next host never tried
// (found by an outside probe: postgres.js alone moves on at each attempt).
describe('postgres.js socket factory, a host closing connections during their startup', () => {
  /** A stand-in server whose connections `serve` plays; its port. */
  async function standInWith(serve: (socket: Socket) => void): Promise<number> {
    const server = createServer((socket) => {
      accepted.push(socket)
      socket.on('error', () => {})
      serve(socket)
    })
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return (server.address() as { port: number }).port
  }

  /** A stand-in server that answers the startup with the start of a message, and closes. */
  async function breaker(): Promise<number> {
    const server = createServer((socket) => {
      accepted.push(socket)
      socket.on('error', () => {})
      socket.once('data', () => socket.end(message('R', Buffer.from([0, 0, 0, 10])).subarray(0, 7)))
    })
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return (server.address() as { port: number }).port
  }

  it('over TLS too: a host that resets during the handshake is skipped by the next attempt', async () => {
    // Answers 'S' to the SSLRequest, then resets during the handshake.
    const broken = await standInWith((s) =>
      s.once('data', () => {
        s.write('S')
        s.once('data', () => s.destroy())
      }),
    )
    const answering = await standInWith((s) =>
      s.once('data', () => {
        s.write('S')
        setTimeout(() => s.destroy(), 100)
      }),
    )
    const { factory } = metered()
    const o = options([broken, answering], null)
    /** One attempt as postgres.js's secure() plays it: the SSLRequest, every listener off, TLS over the socket. */
    const play = async () => {
      const socket = await factory(o)
      const port = (socket as Socket & { port?: number }).port
      const request = Buffer.alloc(8)
      request.writeUInt32BE(8, 0)
      request.writeUInt32BE(80877103, 4)
      socket.write(request)
      await new Promise((resolve) => socket.once('data', resolve))
      socket.removeAllListeners()
      const tls = tlsConnect({ socket, rejectUnauthorized: false })
      tls.on('error', () => {})
      await new Promise((resolve) => tls.once('close', resolve))
      await new Promise((resolve) => setTimeout(resolve, 20))
      return port
    }
    expect(await play()).toBe(broken)
    expect(await play()).toBe(answering)
  })

  for (const attrs of [null, 'read-write']) {
    it(`the next attempt goes on to the next host (target_session_attrs ${attrs})`, async () => {
      const { factory, meters } = metered()
      const broken = await breaker()
      const o = options([broken, primaryPort], attrs)
      const first = await attempt(factory, meters, o)
      expect([first.port, first.ready]).toEqual([broken, false])
      const second = await attempt(factory, meters, o)
      expect([second.port, second.ready]).toEqual([primaryPort, true])
    })
  }
})

describe('postgres.js socket factory, an application factory inside', () => {
  it('is given one host at a time, in the order pipeflush chose', async () => {
    const meters = new Meters()
    const asked: unknown[] = []
    const factory = socketFactory(
      async (o) => {
        asked.push(o.port)
        const socket = connect(o.port[0]!, o.host[0]!)
        await new Promise((resolve) => socket.once('connect', resolve))
        return socket
      },
      (socket, admit) => meters.add(socket, 'x', true, 0, admit).meter,
    )
    const o = options([standbyPort, primaryPort], 'read-write')
    const first = await attempt(factory, meters, o)
    const second = await attempt(factory, meters, o)
    expect([first.port, second.port]).toEqual([standbyPort, primaryPort])
    expect(first.error?.code).toBe('SERVER_NOT_WRITABLE')
    expect(second.ready).toBe(true)
    expect(asked).toEqual([[standbyPort], [primaryPort]])
  })
})
