import { describe, expect, test } from 'vitest'
import { buildPlan, countSteps } from '../../src/matrix.ts'
import { parseOptions } from '../../src/options.ts'
import type { Series } from '../../src/series/types.ts'
import { SERIES_NAMES } from '../../src/series/types.ts'

/** Stand-ins for the real series: the plan only reads names and scenarios. */
const series: Series[] = SERIES_NAMES.map((name) => ({
  name,
  description: name,
  scenarios: name === 'copy' ? ['large'] : ['matrix', 'large', 'concurrency'],
  unavailableReason: async () => undefined,
  open: async () => {
    throw new Error('not in unit tests')
  },
}))

describe('parseOptions', () => {
  test('defaults: the matrix of issue 5', () => {
    const o = parseOptions([])
    expect(o.latencies).toEqual([0, 1, 2, 5, 20])
    expect(o.tables).toEqual([1, 5, 10, 20])
    expect(o.rows).toEqual([1, 10, 100])
    expect(o.large).toEqual([10_000, 100_000])
    expect([o.concurrency, o.pool, o.concurrencyLatency]).toEqual([50, 10, 2])
  })

  test('--quick reduces, explicit flags win over it', () => {
    const o = parseOptions(['--quick', '--latency', '2,1,2', '--series', 'raw-sequential,pipeflush-burst'])
    expect(o.quick).toBe(true)
    expect(o.latencies).toEqual([1, 2])
    expect(o.rows).toEqual([1])
    expect(o.series).toEqual(['raw-sequential', 'pipeflush-burst'])
  })

  test('bad input is a readable error', () => {
    expect(() => parseOptions(['--tables', '0'])).toThrow(/--tables/)
    expect(() => parseOptions(['--tables', '21'])).toThrow(/1\.\.20/)
    expect(() => parseOptions(['--latency', 'x'])).toThrow(/--latency/)
    expect(() => parseOptions(['--nope'])).toThrow()
    expect(parseOptions(['--large', 'none']).large).toEqual([])
  })
})

describe('buildPlan', () => {
  test('default plan: rows 10 and 100 only at 2 ms, copy only in the large flush', () => {
    const plan = buildPlan(parseOptions([]), series)
    expect(plan.map((g) => g.latencyMs)).toEqual([0, 1, 2, 5, 20])
    const steps = plan.flatMap((g) => g.steps)
    const matrix = steps.filter((s) => s.scenario === 'matrix')
    // 8 series x 4 table counts x (5 latencies at 1 row + 2 more row counts at 2 ms)
    expect(matrix).toHaveLength(8 * 4 * (5 + 2))
    expect(matrix.filter((s) => s.work.rowsPerTable > 1).every((s) => s.latencyMs === 2)).toBe(true)
    expect(steps.filter((s) => s.series.name === 'copy').every((s) => s.scenario === 'large')).toBe(true)
    expect(steps.filter((s) => s.scenario === 'large')).toHaveLength(9 * 2)
    expect(steps.filter((s) => s.scenario === 'concurrency')).toHaveLength(8)
    expect(countSteps(plan)).toBe(steps.length)
  })

  test('the large flush and concurrency run add their latency when it is not in the list', () => {
    const plan = buildPlan(parseOptions(['--latency', '0', '--tables', '1', '--rows', '1']), series)
    expect(plan.map((g) => g.latencyMs)).toEqual([0, 2])
    expect(plan[1]?.steps.some((s) => s.scenario === 'matrix')).toBe(false)
  })
})
