// Client CPU of one Conduit request served by pipeflush (the example's store and repositories, as the
// bench's Conduit cell serves it) beside the raw pg client serving the same answer (`pg-pipeline`:
// one joined query), request by request in turn at 0 ms on a pool of one each, after a warm-up: p50 of
// `process.cpuUsage` around each (µs) and their ratio. The Conduit cell's table gives the same per
// request at 20 ms with its wall time; this is the quick A/B of a change to the read path.
//
//   npx node --conditions=@pipeflush/source bench/tools/conduit-cpu.ts [--driver pg|postgres.js]
//     [--request feed|article] [--requests 500]
import { parseArgs } from 'node:util'
import { type ConduitClient, conduitInputs } from '../src/conduit/conduit-requests.ts'
import { CONDUIT_SERIES } from '../src/conduit/series.ts'
import { startBenchEnv } from '../src/env/services.ts'

const { values } = parseArgs({
  options: {
    driver: { type: 'string', default: 'pg' },
    request: { type: 'string', default: 'feed' },
    requests: { type: 'string', default: '500' },
  },
})
const request = values.request as 'feed' | 'article'
if (request !== 'feed' && request !== 'article') throw new Error('--request: feed or article')
const requests = Number(values.requests)
const WARMUP = 100
const ROUNDS = 30

/** The client CPU of serving `request` of round `round` on `client`, µs. */
async function cpuOf(client: ConduitClient, round: number): Promise<number> {
  const inputs = conduitInputs(round % ROUNDS)
  const before = process.cpuUsage()
  if (request === 'feed') await client.feed(inputs.feed)
  else await client.article(inputs.article)
  const d = process.cpuUsage(before)
  return d.user + d.system
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
const env = await startBenchEnv(() => {})
try {
  await env.resetConduit()
  const series = (name: string, driver?: string) =>
    CONDUIT_SERIES.find((s) => s.name === name && (driver === undefined || s.driver === driver))!
  const ours = await series('pipeflush-burst', values.driver).open(env.conduit, 1)
  const raw = await series('pg-pipeline').open(env.conduit, 1)
  try {
    const a: number[] = []
    const b: number[] = []
    for (let i = 0; i < WARMUP + requests; i++) {
      const x = await cpuOf(ours, i)
      const y = await cpuOf(raw, i)
      if (i < WARMUP) continue
      a.push(x)
      b.push(y)
    }
    console.log(
      `${request} on ${values.driver}: pipeflush p50 ${median(a)} µs, raw pg-pipeline ${median(b)} µs, ${(median(a) / median(b)).toFixed(2)}x`,
    )
  } finally {
    await ours.close()
    await raw.close()
  }
} finally {
  await env.stop()
}
