// Run as its own Node process under Node's defaults (no handler installed): a stray rejection ends it
// with a non-zero exit code, and a timer or socket left behind keeps it from exiting.
//
// A postgres.js client through toxiproxy, eight workers reading and flushing units of work; the
// network starts resetting every connection (toxiproxy's `reset_peer`), and the application's
// `sql.end()` is called a moment later, while requests are in flight; the network heals once the
// end settled. postgres.js opens again for each request it holds after a backoff that grew with each
// failure (up to 20 s), and pipeflush refuses each opening once the client ended: the process lived
// on for 70 to 90 s after the end. Prints one JSON line once the end settled.
import { EntityManager, isPipeflushError } from '@pipeflush/core'
import postgres from 'postgres'

export interface EndDuringResetsConfig {
  /** The test database's URL through toxiproxy. */
  readonly url: string
  /** Toxiproxy's HTTP API, and the name of the proxy `url` goes through. */
  readonly api: string
  readonly proxy: string
  readonly table: string
}

export interface EndDuringResetsResult {
  /** The units' outcomes, by code. */
  readonly codes: Readonly<Record<string, number>>
  readonly endMs: number
}

const config = JSON.parse(process.argv[2]!) as EndDuringResetsConfig
const toxics = `${config.api}/proxies/${config.proxy}/toxics`
const sql = postgres(config.url, { max: 3, onnotice: () => {} })
const root = await EntityManager.connect(sql, { flushTimeoutMs: 3_000 })
const codes: Record<string, number> = {}
let stop = false
const worker = async () => {
  while (!stop) {
    try {
      const em = root.fork()
      await em.load(config.table, 1)
      em.create(config.table, { name: `w${Math.random()}` })
      await em.flush()
      codes['ok'] = (codes['ok'] ?? 0) + 1
    } catch (e) {
      const code = isPipeflushError(e) ? e.code : `not a PipeflushError: ${String(e)}`
      codes[code] = (codes[code] ?? 0) + 1
    }
  }
}
const workers = Array.from({ length: 8 }, worker)
await new Promise((resolve) => setTimeout(resolve, 800))
await fetch(toxics, {
  method: 'POST',
  body: JSON.stringify({
    name: 'edr_reset',
    type: 'reset_peer',
    stream: 'downstream',
    attributes: { timeout: 0 },
  }),
})
await new Promise((resolve) => setTimeout(resolve, 150))
stop = true
const ending = performance.now()
const end = sql.end()
await Promise.all(workers)
await end
const endMs = Math.round(performance.now() - ending)
await fetch(`${toxics}/edr_reset`, { method: 'DELETE' })
const result: EndDuringResetsResult = { codes, endMs }
console.log(JSON.stringify(result))
