// npm run demo: starts (or reuses) a PostgreSQL and a toxiproxy, and prints the round-trip time of
// `select 1` at a few injected latencies, with round trips counted at the socket.
import postgres from 'postgres'
import { startPostgres } from '../postgres/start-postgres.ts'
import { createRoundTripCounter } from '../round-trips/round-trip-counter.ts'
import { withSocket } from '../round-trips/with-socket.ts'
import { cleanupAll } from '../support/cleanup.ts'
import { redactUrl } from '../support/redact.ts'
import { startToxiproxy } from '../toxiproxy/start-toxiproxy.ts'

const latencies = [0, 1, 2, 5, 20]
const samples = 20

const pg = await startPostgres()
const tp = await startToxiproxy()
try {
  console.log(`PostgreSQL ${pg.version} (${pg.provider}) at ${redactUrl(pg.url)}`)
  console.log(`toxiproxy ${tp.version} (${tp.provider}) at ${tp.apiUrl}\n`)
  const proxy = await tp.proxy('demo', { host: pg.host, port: pg.port })
  const counter = createRoundTripCounter()
  const sql = postgres(proxy.rewriteUrl(pg.url), withSocket({ max: 1 }, counter))
  await sql`select 1`
  console.log('injected latency | select 1 median | round trips')
  for (const ms of latencies) {
    await proxy.setLatency(ms)
    const times: number[] = []
    counter.reset()
    for (let i = 0; i < samples; i++) {
      const t0 = performance.now()
      await sql`select 1`
      times.push(performance.now() - t0)
    }
    times.sort((a, b) => a - b)
    const median = times[Math.floor(times.length / 2)] ?? 0
    console.log(
      `${`${ms} ms`.padStart(16)} | ${`${median.toFixed(2)} ms`.padStart(15)} | ${(counter.read().roundTrips / samples).toFixed(1).padStart(11)}`,
    )
  }
  await sql.end()
} finally {
  await tp.stop()
  await pg.stop()
  await cleanupAll()
}
