// Run as its own Node process under Node's defaults (no handler installed): a stray rejection ends it
// with a non-zero code, and an end that never settles lets it exit early (code 13, the top-level
// await unsettled) or keeps it alive (killed at the test's limit).
//
// postgres.js over TLS, after openings failed: `sql.end()` settles, and the process exits by itself.
// - `wrongCa`: every opening fails its handshake (the server's certificate is of another CA): connect
//   and a read fail TLS_FAILED; postgres.js reopens a connection for each request it rejected so,
//   one after the other, some after the end was asked;
// - `cutHandshake`: a cold pool whose every new connection is cut 1,000 bytes into the server's
//   answer (inside the TLS handshake): a flush and a read fail, the cut is taken away, the end asked;
// - `cutOnce`: a cold pool whose next connection only is cut inside its handshake: a read fails, the
//   next read is answered (its own opening, while postgres.js still waits out its backoff to reopen
//   for the first), and the end is asked at once (it never settled, found by an outside probe).
// Prints one JSON line.
import { defineSchema, EntityManager } from '@pipeflush/core'
import { startCutProxy } from '@pipeflush/testkit'
import postgres from 'postgres'

export interface EndAfterFailuresConfig {
  /** The server's address, by the name its certificate has (`localhost`), and its database URL. */
  readonly url: string
  /** The CA that signed the server's certificate (PEM), and one that did not. */
  readonly ca: string
  readonly wrongCa: string
}

export interface EndAfterFailuresResult {
  readonly wrongCa: { readonly codes: readonly string[]; readonly endMs: number }
  readonly cutHandshake: { readonly codes: readonly string[]; readonly endMs: number }
  readonly cutOnce: { readonly codes: readonly string[]; readonly endMs: number }
}

const config = JSON.parse(process.argv[2]!) as EndAfterFailuresConfig
const url = new URL(config.url)
const options = (ca: string, port = Number(url.port)) => ({
  host: url.hostname,
  port,
  user: decodeURIComponent(url.username),
  pass: decodeURIComponent(url.password),
  database: url.pathname.slice(1),
  ssl: { ca, rejectUnauthorized: true },
  max: 4,
  connect_timeout: 2,
  onnotice: () => {},
})
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: unknown) => String((e as { code?: unknown }).code),
  )
const schema = defineSchema({ tls_note: { columns: { id: 'int8', body: 'text' }, primaryKey: ['id'] } })

async function wrongCa(): Promise<EndAfterFailuresResult['wrongCa']> {
  const sql = postgres(options(config.wrongCa))
  const codes = [await codeOf(EntityManager.connect(sql))]
  const root = await EntityManager.connect(sql, { schema })
  codes.push(await codeOf(root.fork().find('tls_note', { id: 1 })))
  const started = performance.now()
  await sql.end()
  return { codes, endMs: Math.round(performance.now() - started) }
}

async function cutHandshake(): Promise<EndAfterFailuresResult['cutHandshake']> {
  const proxy = await startCutProxy({ host: url.hostname, port: Number(url.port) })
  const sql = postgres({ ...options(config.ca, proxy.port), idle_timeout: 0.02 })
  const root = await EntityManager.connect(sql, { schema, flushTimeoutMs: 5000 })
  await new Promise((resolve) => setTimeout(resolve, 200)) // the pool is cold (idle_timeout 20 ms)
  proxy.arm({ direction: 'downstream', offset: 1000, action: 'close', once: false })
  const em = root.fork()
  em.create('tls_note', { id: 1, body: 'cut' })
  const codes = await Promise.all([codeOf(em.flush()), codeOf(root.fork().find('tls_note', { id: 1 }))])
  proxy.disarm()
  const started = performance.now()
  await sql.end()
  const endMs = Math.round(performance.now() - started)
  await proxy.stop()
  return { codes, endMs }
}

async function cutOnce(): Promise<EndAfterFailuresResult['cutOnce']> {
  const proxy = await startCutProxy({ host: url.hostname, port: Number(url.port) })
  const sql = postgres({ ...options(config.ca, proxy.port), max: 2, idle_timeout: 0.1 })
  const root = await EntityManager.connect(sql, { flushTimeoutMs: 2500 })
  await new Promise((resolve) => setTimeout(resolve, 400)) // the pool is cold (idle_timeout 100 ms)
  proxy.arm({ direction: 'downstream', offset: 290, action: 'close', once: true })
  const codes = [await codeOf(root.fork().find('tls_note', { id: 1 }))]
  codes.push(await codeOf(root.fork().find('tls_note', { id: 1 })))
  const started = performance.now()
  await sql.end()
  const endMs = Math.round(performance.now() - started)
  await proxy.stop()
  return { codes, endMs }
}

const result: EndAfterFailuresResult = {
  wrongCa: await wrongCa(),
  cutHandshake: await cutHandshake(),
  cutOnce: await cutOnce(),
}
console.log(JSON.stringify(result))
