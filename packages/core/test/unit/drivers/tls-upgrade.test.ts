import { connect, createServer, type Server, type Socket } from 'node:net'
import { type TLSSocket, connect as tlsConnect } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { tlsSocketOver, watchTlsUpgrade } from '../../../src/drivers/socket/tls-upgrade.ts'

let server: Server
let port = 0
const accepted: Socket[] = []
beforeAll(async () => {
  // Accepts and keeps connections open, answering nothing: a TLS handshake over them never ends.
  server = createServer((socket) => {
    accepted.push(socket)
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  port = address.port
})
afterAll(async () => {
  for (const socket of accepted) socket.destroy()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

/** A connected TCP socket to the test server. */
async function tcp(): Promise<Socket> {
  const socket = connect(port, '127.0.0.1')
  await new Promise((resolve) => socket.once('connect', resolve))
  return socket
}

describe('watchTlsUpgrade', () => {
  it('finds the TLS socket a driver puts over a socket, as a driver does it (listeners taken off first)', async () => {
    const socket = await tcp()
    const found: TLSSocket[] = []
    watchTlsUpgrade(socket, (tls) => found.push(tls))
    socket.removeAllListeners() // postgres.js does this before tls.connect
    const errors: unknown[] = []
    const tls = tlsConnect({ socket, rejectUnauthorized: false })
    tls.on('error', (e) => errors.push(e))
    await new Promise((resolve) => setImmediate(resolve))
    expect(found).toHaveLength(1)
    expect(found[0]).toBe(tls)
    expect(errors, 'the probe emits nothing on the TLS socket').toEqual([])
    tls.destroy()
  })

  it('tells nothing for a socket that stays plain', async () => {
    const socket = await tcp()
    let told = 0
    watchTlsUpgrade(socket, () => told++)
    socket.on('error', () => {})
    socket.write('plain')
    await new Promise((resolve) => setImmediate(resolve))
    expect(told).toBe(0)
    expect(tlsSocketOver(socket)).toBeUndefined()
    socket.destroy()
  })
})
