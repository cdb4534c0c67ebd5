// node --conditions=@pipeflush/source scripts/tracing-cost/measure.ts [--flushes 3000] [--driver pg]
// Client CPU per flush (process.cpuUsage) of a burst of 5 tables x 2 new rows, side by side in one
// process at no injected latency, in three settings, interleaved in rounds: no tracer provider (what
// an application without OpenTelemetry gets: @opentelemetry/api present, nothing recording), a
// recording provider (in-memory exporter, AsyncLocalStorage context manager), and `tracing: false`
// with that provider. Prints the median CPU per flush of each and the ratios.
import { parseArgs } from 'node:util'
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import { EntityManager } from '@pipeflush/core'
import { createRoundTripCounter, type DriverName, openClient, startPostgres } from '@pipeflush/testkit'

const { values } = parseArgs({
  options: { flushes: { type: 'string', default: '3000' }, driver: { type: 'string', default: 'pg' } },
})
const flushes = Number(values.flushes)
const driver = values.driver as DriverName
const pg = await startPostgres()
const client = openClient(driver, pg.url, createRoundTripCounter(), { max: 1 })
try {
  await client.query(
    Array.from(
      { length: 5 },
      (_, t) => `create table if not exists tc_${t} (id bigserial primary key, v text)`,
    ).join(';'),
  )
  const exporter = new InMemorySpanExporter()
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] })
  const traced = await EntityManager.connect(client.client)
  const untraced = await EntityManager.connect(client.client, { tracing: false })
  const flush = async (root: EntityManager) => {
    const em = root.fork()
    for (let t = 0; t < 5; t++) for (let r = 0; r < 2; r++) em.create(`tc_${t}`, { v: `row ${r}` })
    const before = process.cpuUsage()
    await em.flush()
    const used = process.cpuUsage(before)
    return (used.user + used.system) / 1000
  }
  const settings = {
    'no provider': async () => flush(traced),
    'recording provider': async () => flush(traced),
    'provider, tracing: false': async () => flush(untraced),
  }
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(settings).map((k) => [k, []]))
  for (let i = 0; i < 200; i++) await flush(traced) // warm-up
  const rounds = 10
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of Object.entries(settings)) {
      if (name === 'no provider') trace.disable()
      else {
        trace.setGlobalTracerProvider(provider)
        context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
      }
      for (let i = 0; i < flushes / rounds; i++) samples[name]!.push(await run())
      exporter.reset()
      context.disable()
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const base = median(samples['no provider']!)
  console.log(`${driver}, ${flushes} flushes per setting, 5 tables x 2 rows, client CPU per flush (median):`)
  for (const [name, xs] of Object.entries(samples))
    console.log(
      `  ${name.padEnd(26)} ${(median(xs) * 1000).toFixed(0)} µs  (${(median(xs) / base).toFixed(2)}x)`,
    )
} finally {
  await client.end()
  await pg.stop()
}
