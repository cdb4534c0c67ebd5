// The CPU scenario's tracing cells against a real PostgreSQL behind toxiproxy: pipeflush-burst with a
// recording OpenTelemetry tracer provider (and with `tracing: false`) runs once per driver beside the
// untraced pipeflush-burst and raw-pipeline, gives a finite client CPU per flush, records spans only
// when traced, and takes the same round trips as the untraced flush. No timing is asserted.
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { createSchema } from '../src/env/schema.ts'
import type { BenchEnv } from '../src/env/services.ts'
import { buildPlan, type CpuStep } from '../src/matrix.ts'
import { measureStep } from '../src/measure-step.ts'
import { parseOptions } from '../src/options.ts'
import { cpuViews } from '../src/report/cpu-view.ts'
import { type ResultRow, withRatios } from '../src/results.ts'
import { selectSeries } from '../src/series/index.ts'
import { DRIVERS, type SeriesName } from '../src/series/types.ts'

const db = useTestDatabase()

const NAMES: SeriesName[] = [
  'pipeflush-burst',
  'pipeflush-burst-traced',
  'pipeflush-burst-tracing-false',
  'raw-pipeline',
]

beforeAll(async () => {
  await createSchema(db.sql)
})

/** Round trips per flush without the id fetches (+1 on the flushes that fetched an id block first). */
const tripsWithoutIdFetches = (r: ResultRow) => (r.roundTrips ?? Number.NaN) - (r.idFetches ?? 0) / r.samples

describe('CPU scenario: tracing cells', () => {
  test('pipeflush-burst-traced runs once per driver: finite CPU, spans recorded, the untraced round trips', async (ctx) => {
    const series = selectSeries(NAMES)
    const unavailable = new Map<string, string>()
    for (const s of series) {
      const reason = await s.unavailableReason()
      if (reason) unavailable.set(s.id, reason)
    }
    if (unavailable.size > 0) ctx.skip([...unavailable.values()][0])
    // The step the bench's plan makes for 10 tables x 1 row, with few flushes.
    const options = parseOptions(['--scenario', 'cpu', '--cpu-flushes', '20', '--cpu-warmup', '2'])
    const step = buildPlan(options, series).flatMap((g) => g.steps)[0] as CpuStep
    expect(step.scenario).toBe('cpu')
    // A CPU step only connects to the target: the rest of the environment is the CLI's.
    const env = { target: { url: db.proxiedUrl } } as BenchEnv
    const rows = withRatios(await measureStep(step, env, options, 0, unavailable))

    for (const driver of DRIVERS) {
      const of = (name: SeriesName) => rows.filter((r) => r.series === name && r.driver === driver)
      const [traced, ...more] = of('pipeflush-burst-traced')
      const [untraced] = of('pipeflush-burst')
      const [off] = of('pipeflush-burst-tracing-false')
      expect(more, driver).toEqual([])
      for (const r of [traced, untraced, off]) {
        expect(r?.status, `${r?.series} (${driver}): ${r?.reason}`).toBe('ok')
        expect(r?.samples).toBe(20)
        expect(Number.isFinite(r?.cpuMs) && (r?.cpuMs ?? 0) > 0).toBe(true)
        expect(Number.isFinite(r?.cpuP50Ms) && Number.isFinite(r?.cpuP95Ms)).toBe(true)
        expect(Number.isFinite(r?.cpuVsRawPipeline)).toBe(true)
        expect(r?.reportMismatches).toBe(0)
      }
      if (!traced || !untraced || !off) return
      expect(tripsWithoutIdFetches(traced)).toBe(tripsWithoutIdFetches(untraced))
      expect(tripsWithoutIdFetches(off)).toBe(tripsWithoutIdFetches(untraced))
      expect(tripsWithoutIdFetches(traced)).toBe(1)
      // The provider recorded the traced flushes' spans, none of the `tracing: false` ones'.
      expect(traced.spansPerFlush ?? 0).toBeGreaterThan(0)
      expect(off.spansPerFlush).toBe(0)
      expect(untraced.spansPerFlush).toBeUndefined()
    }

    const tracing = cpuViews({ meta: {} as never, rtt: [], results: rows }).find((v) =>
      v.title.startsWith('Tracing'),
    )
    expect(tracing?.rows.map((r) => [r[0], r[1]])).toEqual(
      DRIVERS.flatMap((d) => [
        [d, 'no tracer provider'],
        [d, 'recording provider, tracing: false'],
        [d, 'recording provider'],
      ]),
    )
  })
})
