import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { Meters, openingRoundTrips } from '../../../src/drivers/socket/meters.ts'

/** A startup message with protocol code `code` (196608: 3.0; 80877103: SSLRequest). */
function startup(code = 196608): Buffer {
  const b = Buffer.alloc(8)
  b.writeUInt32BE(8, 0)
  b.writeUInt32BE(code, 4)
  return b
}

/** A server message: type byte, length, body. */
function message(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(5)
  head.write(type, 0)
  head.writeUInt32BE(body.length + 4, 1)
  return Buffer.concat([head, body])
}

const READY = message('Z', Buffer.from('I'))
const AUTH_SASL = message('R', Buffer.from([0, 0, 0, 10]))

/** A socket whose bytes go nowhere, metered from its first byte. */
function metered(afterReady: number) {
  const socket = new PassThrough()
  socket.resume()
  const m = new Meters().add(socket, 'test:5432', true, afterReady)
  const server = (data: Buffer) => socket.emit('data', data)
  return { socket, m, server }
}

describe('openingRoundTrips', () => {
  it('counts the startup, authentication and the round trips the driver makes after ready', async () => {
    const { socket, m, server } = metered(1)
    let settled: number | undefined
    void openingRoundTrips(m, Number.POSITIVE_INFINITY).then((n) => {
      settled = n
    })
    socket.write(startup()) // 1
    server(AUTH_SASL)
    socket.write(Buffer.from('p')) // 2: the password
    server(READY)
    await new Promise((resolve) => setImmediate(resolve))
    expect(settled).toBeUndefined() // the driver's own query after ready is still to come
    socket.write(Buffer.from('P')) // 3: e.g. postgres.js's type query
    await new Promise((resolve) => setImmediate(resolve))
    expect(settled).toBe(3)
    // Once over, at once: the same count, whatever the connection did since.
    server(READY)
    socket.write(Buffer.from('Q'))
    expect(await openingRoundTrips(m, Number.POSITIVE_INFINITY)).toBe(3)
  })

  it('without round trips after ready: over when the server is ready', async () => {
    const { socket, m, server } = metered(0)
    const trips = openingRoundTrips(m, Number.POSITIVE_INFINITY)
    socket.write(startup())
    server(READY)
    expect(await trips).toBe(1)
  })

  it('closed before ready, encrypted (TLS), or past the deadline: the round trips so far', async () => {
    const closed = metered(0)
    const beforeClose = openingRoundTrips(closed.m, Number.POSITIVE_INFINITY)
    closed.socket.write(startup())
    closed.socket.destroy()
    expect(await beforeClose).toBe(1)

    const tls = metered(1)
    const encrypted = openingRoundTrips(tls.m, Number.POSITIVE_INFINITY)
    tls.socket.write(startup(80877103))
    tls.server(Buffer.from('S'))
    expect(await encrypted).toBe(1)
    expect(tls.m.meter.ready).toBe(false)

    const slow = metered(0)
    slow.socket.write(startup())
    const started = performance.now()
    expect(await openingRoundTrips(slow.m, performance.now() + 30)).toBe(1)
    expect(performance.now() - started).toBeLessThan(1000)
  })
})

describe('Meters.unclaimedOpenings', () => {
  it('the sockets created in a window, metered from their first byte and not claimed', async () => {
    const meters = new Meters()
    const before = meters.add(new PassThrough(), 'a:1')
    await new Promise((resolve) => setTimeout(resolve, 5))
    const from = performance.now()
    const inside = meters.add(new PassThrough(), 'a:1')
    const late = meters.add(new PassThrough(), 'a:1', false)
    const claimed = meters.add(new PassThrough(), 'a:1')
    claimed.openingClaimed = true
    const to = performance.now()
    await new Promise((resolve) => setTimeout(resolve, 5))
    meters.add(new PassThrough(), 'a:1')
    expect(meters.unclaimedOpenings(from, to)).toEqual([inside])
    expect(meters.unclaimedOpenings(0, to)).toEqual([before, inside])
    expect(late.fromStart).toBe(false)
  })
})
