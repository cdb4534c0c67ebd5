import { describe, expect, test } from 'vitest'
import type { ConduitSeries } from '../../src/conduit/conduit-requests.ts'
import { buildPlan, type CpuStep, countSteps, type FlushStep, stepSeriesIds } from '../../src/matrix.ts'
import { parseOptions } from '../../src/options.ts'
import type { RealisticSeries } from '../../src/realistic/runner.ts'
import type { RequestSeries } from '../../src/request/request.ts'
import {
  DRIVERS,
  type DriverName,
  type Scenario,
  SERIES_NAMES,
  type Series,
  type SeriesName,
  seriesId,
} from '../../src/series/types.ts'

const ON_BOTH = [
  'pipeflush-off',
  'pipeflush-waves',
  'pipeflush-burst',
  'pipeflush-burst-traced',
  'pipeflush-burst-tracing-false',
  'raw-pipeline',
  'raw-simple',
]

function scenarios(name: SeriesName): Scenario[] {
  if (name === 'raw-pg') return [] // the request scenario only
  if (name === 'pipeflush-drizzle' || name === 'drizzle') return [] // the realistic workload only
  if (name === 'copy') return ['large']
  if (
    name === 'raw-pipeline' ||
    name === 'raw-simple' ||
    name === 'pipeflush-burst-traced' ||
    name === 'pipeflush-burst-tracing-false'
  )
    return ['cpu']
  if (name === 'pipeflush-burst') return ['matrix', 'large', 'concurrency', 'cpu']
  return ['matrix', 'large', 'concurrency']
}

/** Stand-ins for the real series: the plan only reads names, drivers and scenarios. */
const series: Series[] = SERIES_NAMES.flatMap((name) =>
  (ON_BOTH.includes(name) ? DRIVERS : (['postgres.js'] as DriverName[])).map((driver) => ({
    name,
    driver,
    id: seriesId(name, driver),
    description: name,
    scenarios: scenarios(name),
    unavailableReason: async () => undefined,
    open: async () => {
      throw new Error('not in unit tests')
    },
  })),
)

const realistic: RealisticSeries[] = (['raw-promise-all', 'pipeflush-burst', 'mikroorm'] as const).map(
  (name) => ({
    name,
    driver: 'postgres.js',
    id: name,
    description: name,
    unavailableReason: async () => undefined,
    open: async () => {
      throw new Error('not in unit tests')
    },
  }),
)

const request: RequestSeries[] = (['pipeflush-burst', 'mikroorm', 'raw-pg'] as const).map((name) => ({
  name,
  driver: 'pg',
  id: name,
  description: name,
  unavailableReason: async () => undefined,
  open: async () => {
    throw new Error('not in unit tests')
  },
}))

const conduit: ConduitSeries[] = (['pipeflush-burst', 'mikroorm', 'pg-pipeline'] as const).map((name) => ({
  name,
  driver: 'pg',
  id: name,
  description: name,
  unavailableReason: async () => undefined,
  open: async () => {
    throw new Error('not in unit tests')
  },
}))

describe('parseOptions', () => {
  test('defaults: the latency x tables x rows matrix, both drivers, the realistic workload at 2 and 20 ms, CPU side by side', () => {
    const o = parseOptions([])
    expect(o.latencies).toEqual([0, 1, 2, 5, 20])
    expect(o.tables).toEqual([1, 5, 10, 20])
    expect(o.rows).toEqual([1, 10, 100])
    expect(o.large).toEqual([10_000, 100_000])
    expect([o.concurrency, o.pool, o.concurrencyLatency]).toEqual([50, 10, 2])
    expect(o.drivers).toEqual(['postgres.js', 'pg'])
    expect([o.realisticLatencies, o.realisticPool, o.cpuFlushes, o.profile]).toEqual([
      [2, 20],
      10,
      1500,
      false,
    ])
  })

  test('--quick reduces, explicit flags win over it', () => {
    const o = parseOptions(['--quick', '--latency', '2,1,2', '--series', 'raw-sequential,pipeflush-burst'])
    expect(o.quick).toBe(true)
    expect(o.latencies).toEqual([1, 2])
    expect(o.rows).toEqual([1])
    expect(o.series).toEqual(['raw-sequential', 'pipeflush-burst'])
    expect(o.realisticLatencies).toEqual([20])
    expect(
      parseOptions(['--quick', '--realistic-latency', 'none', '--drivers', 'pg']).realisticLatencies,
    ).toEqual([])
    expect(parseOptions(['--drivers', 'pg,postgres.js']).drivers).toEqual(['postgres.js', 'pg'])
  })

  test('the request scenario: at 20 ms by default, a tiny form with --quick, --request or --scenario alone', () => {
    const o = parseOptions([])
    expect([o.requestLatencies, o.requestSamples, o.requestWarmup, o.requestPool, o.scenarios]).toEqual([
      [20],
      30,
      2,
      4,
      undefined,
    ])
    const q = parseOptions(['--quick'])
    expect([q.requestLatencies, q.requestSamples, q.requestWarmup]).toEqual([[20], 8, 1])
    expect(parseOptions(['--request']).scenarios).toEqual(['request'])
    expect(parseOptions(['--scenario', 'request,matrix']).scenarios).toEqual(['matrix', 'request'])
    expect(parseOptions(['--request-latency', 'none']).requestLatencies).toEqual([])
    expect(() => parseOptions(['--scenario', 'requests'])).toThrow(/--scenario/)
  })

  test("the request scenario's cells: shop and conduit by default, --request-cells picks them", () => {
    expect(parseOptions([]).requestCells).toEqual(['shop', 'conduit'])
    expect(parseOptions(['--request-cells', 'conduit']).requestCells).toEqual(['conduit'])
    expect(parseOptions(['--request-cells', 'conduit,shop']).requestCells).toEqual(['shop', 'conduit'])
    expect(() => parseOptions(['--request-cells', 'nope'])).toThrow(/--request-cells/)
    // Each Conduit round favorites an article not favorited before: 1,000 rounds at most.
    expect(() => parseOptions(['--request-samples', '999', '--request-warmup', '2'])).toThrow(/1000/)
    expect(parseOptions(['--request-samples', '999', '--request-cells', 'shop']).requestSamples).toBe(999)
  })

  test('bad input is a readable error', () => {
    expect(() => parseOptions(['--tables', '0'])).toThrow(/--tables/)
    expect(() => parseOptions(['--tables', '21'])).toThrow(/1\.\.20/)
    expect(() => parseOptions(['--latency', 'x'])).toThrow(/--latency/)
    expect(() => parseOptions(['--drivers', 'mysql'])).toThrow(/--drivers/)
    expect(() => parseOptions(['--nope'])).toThrow()
    expect(parseOptions(['--large', 'none']).large).toEqual([])
  })
})

describe('buildPlan', () => {
  test('default plan: rows 10 and 100 only at 2 ms, copy only in the large flush, CPU at 0 ms, realistic at 2 and 20 ms', () => {
    const plan = buildPlan(parseOptions([]), series, realistic, request)
    expect(plan.map((g) => g.latencyMs)).toEqual([0, 1, 2, 5, 20])
    const steps = plan.flatMap((g) => g.steps)
    const matrix = steps.filter((s): s is FlushStep => s.scenario === 'matrix')
    // 11 series (pipeflush's three modes on two drivers) x 4 table counts x (5 latencies at 1 row + 2 more row counts at 2 ms)
    expect(matrix).toHaveLength(11 * 4 * (5 + 2))
    expect(matrix.filter((s) => s.work.rowsPerTable > 1).every((s) => s.latencyMs === 2)).toBe(true)
    expect(steps.filter((s) => stepSeriesIds(s).includes('copy')).every((s) => s.scenario === 'large')).toBe(
      true,
    )
    expect(steps.filter((s) => s.scenario === 'large')).toHaveLength(12 * 2)
    expect(steps.filter((s) => s.scenario === 'concurrency')).toHaveLength(11)
    const cpu = steps.filter((s): s is CpuStep => s.scenario === 'cpu')
    // pipeflush-burst, its traced and tracing: false twins, raw-pipeline and raw-simple, on both drivers;
    // then the shop cells: pipeflush-burst, raw-pipeline and raw-simple on both drivers (the four
    // flushes, then the read batch)
    expect(cpu.map((s) => [s.latencyMs, s.work.shop ?? null, s.series.length])).toEqual([
      [0, null, 10],
      [0, null, 10],
      [0, 'graph', 6],
      [0, 'update', 6],
      [0, 'delete', 6],
      [0, 'mix', 6],
      [0, 'load', 6],
      // the first flush of new statement shapes: pipeflush-burst alone, on both drivers
      [0, null, 2],
    ])
    expect(cpu.at(-1)?.work.firstShapes).toBe(true)
    const real = steps.filter((s) => s.scenario === 'realistic')
    expect(real).toHaveLength(3 * 2 * 2)
    expect([...new Set(real.map((s) => s.latencyMs))]).toEqual([2, 20])
    const req = steps.filter((s) => s.scenario === 'request')
    expect(req.map((s) => [s.latencyMs, stepSeriesIds(s)[0]])).toEqual([
      [20, 'pipeflush-burst'],
      [20, 'mikroorm'],
      [20, 'raw-pg'],
    ])
    expect(countSteps(plan)).toBe(steps.length)
  })

  test('--cpu-cells picks the CPU cells; an unknown one is refused', () => {
    const plan = buildPlan(parseOptions(['--scenario', 'cpu', '--cpu-cells', '5x10,mix']), series)
    const works = plan.flatMap((g) => g.steps).map((s) => (s.scenario === 'cpu' ? s.work : undefined))
    expect(works.map((w) => w?.shop ?? `${w?.tables.length}x${w?.rowsPerTable}`)).toEqual(['5x10', 'mix'])
    expect(() => parseOptions(['--cpu-cells', 'graph,nope'])).toThrow(/--cpu-cells/)
  })

  test('the large flush, concurrency, CPU and realistic runs add their latency when it is not in the list', () => {
    const plan = buildPlan(
      parseOptions(['--latency', '1', '--tables', '1', '--rows', '1', '--realistic-latency', '20']),
      series,
      realistic,
    )
    expect(plan.map((g) => g.latencyMs)).toEqual([0, 1, 2, 20])
    expect(plan[0]?.steps.every((s) => s.scenario === 'cpu')).toBe(true)
    expect(plan[2]?.steps.some((s) => s.scenario === 'matrix')).toBe(false)
    expect(plan[3]?.steps.every((s) => s.scenario === 'realistic')).toBe(true)
  })

  test('--request: the request steps alone, at their latency only', () => {
    const plan = buildPlan(parseOptions(['--request']), series, realistic, request)
    expect(plan.map((g) => [g.latencyMs, g.steps.map((s) => s.scenario)])).toEqual([
      [20, ['request', 'request', 'request']],
    ])
    const quick = buildPlan(parseOptions(['--quick']), series, realistic, request)
    expect(quick.flatMap((g) => g.steps).filter((s) => s.scenario === 'request')).toHaveLength(3)
  })

  test("--request runs the Conduit cell after the shop's request; --request-cells conduit alone", () => {
    const cells = (args: string[]) =>
      buildPlan(parseOptions(args), series, realistic, request, conduit)
        .flatMap((g) => g.steps)
        .flatMap((s) => (s.scenario === 'request' ? [`${s.latencyMs} ${s.cell} ${s.series.id}`] : []))
    expect(cells(['--request'])).toEqual([
      '20 shop pipeflush-burst',
      '20 shop mikroorm',
      '20 shop raw-pg',
      '20 conduit pipeflush-burst',
      '20 conduit mikroorm',
      '20 conduit pg-pipeline',
    ])
    expect(cells([])).toEqual(cells(['--request']))
    expect(cells(['--request', '--request-cells', 'conduit'])).toEqual([
      '20 conduit pipeflush-burst',
      '20 conduit mikroorm',
      '20 conduit pg-pipeline',
    ])
    const plan = buildPlan(parseOptions(['--request', '--request-cells', 'conduit']), series, [], [], conduit)
    expect(plan.map((g) => g.latencyMs)).toEqual([20])
  })
})
