// The CPU scenario's first-flush cell against a real PostgreSQL behind toxiproxy: it runs through the
// bench's own step on both drivers, each driver on statement shapes new to the process, and its rows,
// table and targets come out. No timing is asserted.
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { createSchema } from '../src/env/schema.ts'
import type { BenchEnv } from '../src/env/services.ts'
import { buildPlan, type CpuStep } from '../src/matrix.ts'
import { measureFirstFlush } from '../src/measure/first-flush.ts'
import { measureStep } from '../src/measure-step.ts'
import { parseOptions } from '../src/options.ts'
import { cpuViews } from '../src/report/cpu-view.ts'
import { checkCpuConcurrencyLargeTargets } from '../src/report/targets.ts'
import { withRatios } from '../src/results.ts'
import { selectSeries } from '../src/series/index.ts'
import { DRIVERS } from '../src/series/types.ts'

const db = useTestDatabase()

beforeAll(async () => {
  await createSchema(db.sql)
})

describe('CPU scenario: the first flush of new statement shapes', () => {
  test('the cell runs pipeflush-burst on both drivers: rows, a table and a target per driver', async (ctx) => {
    for (const s of selectSeries(['pipeflush-burst'])) {
      const reason = await s.unavailableReason()
      if (reason) ctx.skip(reason)
    }
    const options = parseOptions(['--scenario', 'cpu', '--cpu-flushes', '10', '--cpu-cells', 'first'])
    const steps = buildPlan(options, selectSeries(undefined)).flatMap((g) => g.steps) as CpuStep[]
    expect(steps.map((s) => s.series.map((x) => x.id))).toEqual([
      DRIVERS.map((d) => `pipeflush-burst (${d})`),
    ])
    const env = { target: { url: db.proxiedUrl } } as BenchEnv
    const results = withRatios(await measureStep(steps[0]!, env, options, 0, new Map()))
    expect(results.map((r) => [r.driver, r.cpuCell, r.status, r.reason, r.samples])).toEqual(
      DRIVERS.map((d) => [d, 'first', 'ok', undefined, 5]),
    )
    for (const r of results) {
      expect(r.cpuP50Ms).toBeGreaterThan(0)
      expect(r.cpuRepeatedP50Ms).toBeGreaterThan(0)
    }
    const report = { meta: {} as never, rtt: [], results }
    const view = cpuViews(report).find((v) => v.title.includes('first flush of a new statement shape'))
    expect(view?.rows).toHaveLength(DRIVERS.length)
    const checks = checkCpuConcurrencyLargeTargets(report).filter((c) =>
      c.text.includes("shape's first flush"),
    )
    expect(checks).toHaveLength(DRIVERS.length)
    for (const c of checks) expect(c.ok).not.toBeNull()
  })

  test('each measurement takes shapes no earlier one in the process took', async () => {
    const target = { url: db.proxiedUrl }
    // A new row's shape is the columns it wrote: the bits of the columns not null.
    const shape = [...Array(12).keys()]
      .map((i) => `(case when c${i} is null then 0 else ${2 ** i} end)`)
      .join(' + ')
    const shapesBetween = async (from: number, to: number) =>
      new Set(
        (
          await db.sql.unsafe(
            `select distinct ${shape} as s from first_shape where id > ${from} and id <= ${to}`,
          )
        ).map((r) => Number(r['s'])),
      )
    const last = async () =>
      Number((await db.sql.unsafe('select max(id) as m from first_shape'))[0]?.['m'] ?? 0)
    const start = await last()
    await measureFirstFlush('pg', target, 3)
    const middle = await last()
    const m = await measureFirstFlush('postgres.js', target, 3)
    expect(m.shapes).toBe(3)
    const first = await shapesBetween(start, middle)
    const second = await shapesBetween(middle, await last())
    // 3 shapes each, and the warm-up's (every column) both share: no measured shape twice.
    expect(first.size).toBe(3 + 1)
    expect(second.size).toBe(3 + 1)
    const both = [...second].filter((n) => first.has(n))
    expect(both).toEqual([2 ** 12 - 1])
  })
})
