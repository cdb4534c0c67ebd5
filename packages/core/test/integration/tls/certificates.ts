import { execFileSync } from 'node:child_process'
import { chmodSync, chownSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A certificate authority made for a test, and a server certificate it signed. */
export interface TestCertificates {
  readonly dir: string
  /** The CA certificate (PEM), to verify the server with. */
  readonly ca: string
  /** Paths of the server's certificate and key, for PostgreSQL's `ssl_cert_file` / `ssl_key_file`. */
  readonly certFile: string
  readonly keyFile: string
}

/**
 * A new CA and a server certificate for `hostName` (CN and DNS subject alternative name), made with
 * the `openssl` command, in a temporary folder. The key belongs to `owner` (the user the server runs
 * as) with mode 0600, as PostgreSQL requires.
 *
 * @example
 * const certs = makeCertificates('localhost', { uid: 999, gid: 999 })
 */
export function makeCertificates(
  hostName: string,
  owner?: { readonly uid: number; readonly gid: number },
): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'pipeflush-tls-'))
  chmodSync(dir, 0o755)
  const path = (name: string) => join(dir, name)
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' })
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=pipeflush test CA',
    '-keyout',
    path('ca.key'),
    '-out',
    path('ca.crt'),
  )
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${hostName}`,
    '-keyout',
    path('server.key'),
    '-out',
    path('server.csr'),
  )
  writeFileSync(path('san.ext'), `subjectAltName=DNS:${hostName}\n`)
  openssl(
    'x509',
    '-req',
    '-in',
    path('server.csr'),
    '-CA',
    path('ca.crt'),
    '-CAkey',
    path('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    path('san.ext'),
    '-out',
    path('server.crt'),
  )
  chmodSync(path('server.key'), 0o600)
  chmodSync(path('server.crt'), 0o644)
  if (owner) {
    chownSync(path('server.key'), owner.uid, owner.gid)
    chownSync(path('server.crt'), owner.uid, owner.gid)
  }
  return {
    dir,
    ca: readFileSync(path('ca.crt'), 'utf8'),
    certFile: path('server.crt'),
    keyFile: path('server.key'),
  }
}

/**
 * The server name (SNI) of the first TLS ClientHello in `bytes` (a connection's client-to-server
 * bytes, from its first byte: the 8-byte SSLRequest, then TLS records), or undefined when it sends
 * none.
 *
 * @example
 * serverNameOf(recordedUpstream) // 'localhost'
 */
export function serverNameOf(bytes: Buffer): string | undefined {
  let i = 8 // SSLRequest
  if (bytes[i] !== 0x16) return undefined // a TLS handshake record
  i += 5
  if (bytes[i] !== 0x01) return undefined // ClientHello
  i += 4 + 2 + 32 // handshake header, version, random
  i += 1 + bytes[i]! // session id
  i += 2 + bytes.readUInt16BE(i) // cipher suites
  i += 1 + bytes[i]! // compression methods
  const end = i + 2 + bytes.readUInt16BE(i)
  i += 2
  while (i + 4 <= end) {
    const type = bytes.readUInt16BE(i)
    const length = bytes.readUInt16BE(i + 2)
    if (type === 0) {
      // server_name: list length, then (type 0: host name, length, name)
      const nameLength = bytes.readUInt16BE(i + 4 + 3)
      return bytes.subarray(i + 4 + 5, i + 4 + 5 + nameLength).toString('ascii')
    }
    i += 4 + length
  }
  return undefined
}
