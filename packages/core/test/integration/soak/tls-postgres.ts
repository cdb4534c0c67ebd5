import { execFileSync } from 'node:child_process'
import { type StartedPostgres, startPostgres } from '@pipeflush/testkit'
import { makeCertificates } from '../tls/certificates.ts'

/**
 * An embedded PostgreSQL of its own (never `DATABASE_URL`'s, which may not speak TLS) with `ssl = on`
 * and a certificate made for the run, for the chaos soak over TLS.
 *
 * @example
 * const pg = await startTlsPostgres()
 */
export async function startTlsPostgres(): Promise<StartedPostgres> {
  const certs = makeCertificates('localhost', serverUser())
  return startPostgres({
    ignoreEnv: true,
    skipDocker: true,
    settings: { ssl: 'on', ssl_cert_file: certs.certFile, ssl_key_file: certs.keyFile },
  })
}

/** The user the embedded server runs as when this process is root (it owns the key), else undefined. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim())
  return { uid: id('-u'), gid: id('-g') }
}
