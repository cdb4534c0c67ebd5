import { createServer, type Server } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DriverError } from '../../../src/drivers/driver.ts'
import { connectFailure } from '../../../src/drivers/driver-errors.ts'
import { cannotConnect } from '../../../src/drivers/postgres-js/reservation.ts'

/** A driver error of kind `connection` around `cause`, as the adapters make them. */
function connectionError(cause: Error & { code?: string }): DriverError {
  return { kind: 'connection', message: cause.message, code: cause.code, cause }
}

/** The error Node gives a TLS handshake whose connection the peer (here: the network) reset. */
function resetDuringHandshake(port: number): Promise<Error & { code?: string }> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false })
    socket.on('error', resolve)
    socket.on('secureConnect', () => resolve(new Error('the handshake completed')))
  })
}

let server: Server
beforeAll(async () => {
  // Closes every connection once the ClientHello arrived: what a network fault (a proxy's connection
  // cut) does to a handshake in flight.
  server = createServer((socket) => socket.once('data', () => socket.destroy()))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe('connectFailure', () => {
  it('a TLS handshake the network reset is a connection lost while opening, not TLS_FAILED', async () => {
    const address = server.address()
    if (address === null || typeof address === 'string') throw new Error('no port')
    const e = await resetDuringHandshake(address.port)
    expect(e.message).toMatch(/TLS/) // the message names TLS, the code is the network's
    expect(e.code).toBe('ECONNRESET')
    expect(connectFailure(connectionError(e))).toBeUndefined()
  })

  it.each([
    [
      { code: 'ERR_TLS_CERT_ALTNAME_INVALID', message: "Hostname/IP does not match certificate's altnames" },
      'TLS_FAILED',
    ],
    [{ code: 'DEPTH_ZERO_SELF_SIGNED_CERT', message: 'self-signed certificate' }, 'TLS_FAILED'],
    [{ code: undefined, message: 'The server does not support SSL connections' }, 'TLS_FAILED'],
    [{ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:1' }, 'HOST_UNREACHABLE'],
    [{ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND db.invalid' }, 'HOST_UNREACHABLE'],
    [{ code: 'ECONNRESET', message: 'read ECONNRESET' }, undefined],
    [
      {
        code: 'ECONNRESET',
        message:
          'Client network socket disconnected before secure TLS connection was established: the server does not support SSL connections (it answered N to the SSLRequest)',
      },
      'TLS_FAILED',
    ],
  ] as const)('%o is %s', (fields, expected) => {
    const cause = Object.assign(new Error(fields.message), { code: fields.code })
    expect(connectFailure(connectionError(cause))).toBe(expected)
  })

  it('a refused login and an unknown database by their SQLSTATE', () => {
    const server = (sqlState: string): DriverError => ({
      kind: 'server',
      message: 'refused',
      sqlState,
      cause: null,
    })
    expect(connectFailure(server('28P01'))).toBe('LOGIN_FAILED')
    expect(connectFailure(server('3D000'))).toBe('DATABASE_NOT_FOUND')
  })

  it("node-postgres's own refusal to log in without a password is LOGIN_FAILED (no SQLSTATE: it never asked the server)", () => {
    for (const message of [
      'SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string',
      'SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a non-empty string',
      'Password must be a string',
    ])
      expect(connectFailure(connectionError(new Error(message)))).toBe('LOGIN_FAILED')
    expect(
      connectFailure(
        connectionError(new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: server nonce is too short')),
      ),
    ).toBeUndefined()
  })

  it("PgBouncer's 08P01: its own words, and the server's it passes on; other 08P01s are none of these", () => {
    const bouncer = (message: string): DriverError => ({
      kind: 'connection',
      message,
      sqlState: '08P01',
      cause: null,
    })
    expect(connectFailure(bouncer('SASL authentication failed'))).toBe('LOGIN_FAILED')
    expect(connectFailure(bouncer('password authentication failed'))).toBe('LOGIN_FAILED')
    expect(connectFailure(bouncer('no such database: shop'))).toBe('DATABASE_NOT_FOUND')
    expect(connectFailure(bouncer('database "gone" does not exist'))).toBe('DATABASE_NOT_FOUND')
    expect(connectFailure(bouncer('unsupported startup parameter: options'))).toBe('INVALID_CONFIG')
    expect(connectFailure(bouncer('invalid message format'))).toBeUndefined()
  })

  it('ENOENT: a unix socket with no file is unreachable; a certificate file not there is TLS_FAILED (the settings to fix)', () => {
    const enoent = (syscall: string) =>
      connectionError(Object.assign(new Error(`${syscall} ENOENT /x`), { code: 'ENOENT', syscall }))
    expect(connectFailure(enoent('connect'))).toBe('HOST_UNREACHABLE')
    expect(connectFailure(enoent('open'))).toBe('TLS_FAILED')
  })
})

describe('postgres.js: attempts that failed for longer than connect_timeout', () => {
  // Bug: the error kept only its message, in which Node's words for a handshake the network cut
  // name TLS: TLS_FAILED ("check the TLS settings") for a connection lost while it opened.
  it('are classified by the last attempt’s own error: a cut handshake is no TLS failure', async () => {
    const address = server.address()
    if (address === null || typeof address === 'string') throw new Error('no port')
    const cut = await resetDuringHandshake(address.port)
    const refused = Object.assign(new Error('self-signed certificate'), {
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    })
    const after = (error: Error) =>
      cannotConnect({
        meters: {
          lastFailure: { at: 0, address: 'db:5432', reason: error.message, tlsRefused: false, error },
        },
        address: 'db:5432',
        connectTimeoutMs: 1000,
      } as never)
    expect(after(cut).message).toMatch(/within connect_timeout \(1 s\): .*TLS/)
    expect(connectFailure(after(cut))).toBeUndefined()
    expect(connectFailure(after(refused))).toBe('TLS_FAILED')
  })
})
