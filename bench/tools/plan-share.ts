// How much of a flush's client CPU is planning, and what the flush would cost beside the raw message
// without it: per cell, pipeflush-burst flush by flush in turn with raw-simple (the same statements
// as one simple-protocol message) on one driver, pipeflush's core being a copy of this tree's with
// measuring put in (`patchedCore`; the tree is not changed): `process.cpuUsage` around the planner
// (the draft, before a connection is had; assigning the ids and completing the plan, once it is) and
// `performance.now()` laps between its stages. Prints the p50s of the flush, the raw message, the
// planning, the ratio, the ratio of the flush less its planning (flush by flush) and each stage's
// p50 (the laps cost a few µs in all, in the flush and in its planning alike).
//
//   npx node --conditions=@pipeflush/source bench/tools/plan-share.ts [--cells 1x1,10x1,graph,mix]
//     [--drivers pg,postgres.js] [--flushes 800]
import { parseArgs } from 'node:util'
import { startBenchEnv } from '../src/env/services.ts'
import { type FlushSide, median, patchedCore, prepareFlush } from '../src/measure/core-builds.ts'
import { openDriver } from '../src/series/driver-client.ts'
import { selectSeries } from '../src/series/index.ts'
import { FIXTURE_UNITS, type ShopCell, shopWork } from '../src/series/shop-cells.ts'
import { Units } from '../src/series/shop-pipeflush.ts'
import type { DriverName } from '../src/series/types.ts'
import { matrixWork } from '../src/workload.ts'

const { values } = parseArgs({
  options: {
    cells: { type: 'string', default: '1x1,10x1,5x10,graph,update,delete,mix' },
    drivers: { type: 'string', default: 'pg,postgres.js' },
    flushes: { type: 'string', default: '800' },
  },
})
const flushes = Number(values.flushes)
const WARMUP = 100
if (!(flushes > 0 && flushes + WARMUP <= FIXTURE_UNITS))
  throw new Error(`--flushes: 1 to ${FIXTURE_UNITS - WARMUP} (each shop unit its own fixture rows)`)

/** What the patched core writes: planning CPU (µs) and each stage's time (µs), per flush. */
interface Measured {
  planCpu: number
  stages: Record<string, number>
}
const measured: Measured = { planCpu: 0, stages: {} }
;(globalThis as unknown as { __pipeflushPlan: Measured }).__pipeflushPlan = measured
const G = 'globalThis.__pipeflushPlan'
const cpuSince = (from: string) =>
  `{ const d = process.cpuUsage(${from}); ${G}.planCpu += d.user + d.system }`
/** A lap function in the patched file: the time since the last lap goes to stage `k`. */
const LAPS = `let lapAt = performance.now()
  const lap = (k) => {
    const now = performance.now()
    ${G}.stages[k] = (${G}.stages[k] ?? 0) + (now - lapAt) * 1000
    lapAt = now
  }
`
const core = await patchedCore([
  {
    file: 'flush/flush-unit-of-work.ts',
    find: `  let draft: FlushDraft | undefined = forgetSentOnFailure(pending.inserts, () =>
    draftFlush(schema, pendingInput(pending, uow), settings),
  )`,
    replace: `  const drafting = process.cpuUsage()
  let draft: FlushDraft | undefined = forgetSentOnFailure(pending.inserts, () =>
    draftFlush(schema, pendingInput(pending, uow), settings),
  )
  ${cpuSince('drafting')}`,
  },
  {
    file: 'flush/flush-unit-of-work.ts',
    find: '      assignIds(rows, need, ids)\n',
    replace: `      const completing = process.cpuUsage()
      const assignedAt = performance.now()
      assignIds(rows, need, ids)
      ${G}.stages['assign ids'] = (${G}.stages['assign ids'] ?? 0) + (performance.now() - assignedAt) * 1000
      const completedAt = performance.now()
`,
  },
  {
    file: 'flush/flush-unit-of-work.ts',
    find: '      context.onPlanned?.(plan)\n',
    replace: `      ${G}.stages.complete = (${G}.stages.complete ?? 0) + (performance.now() - completedAt) * 1000
      ${cpuSince('completing')}
      context.onPlanned?.(plan)
`,
  },
  {
    file: 'plan/draft-flush.ts',
    find: `  const inserts = groupInserts(schema, input.inserts)
  encodeDrafts(schema, inserts, input.inserts, 'insert', options)
  const grouped = groupStored(schema, input.updates, 'update')
  encodeDrafts(schema, grouped, input.updates, 'update')
  // Rows of one update handing unique values to each other go in statements of their own.
  const updates = splitHandoffs(grouped)
  const deletes = groupStored(schema, input.deletes, 'delete')
  encodeDrafts(schema, deletes, input.deletes, 'delete')
  checkDistinctRows(updates.length + deletes.length === 0 ? inserts : [...inserts, ...updates, ...deletes])
  const { statements, waves } = orderStatements(schema, inserts, updates, deletes)
`,
    replace: `  ${LAPS}
  const inserts = groupInserts(schema, input.inserts)
  lap('group')
  encodeDrafts(schema, inserts, input.inserts, 'insert', options)
  lap('encode')
  const grouped = groupStored(schema, input.updates, 'update')
  lap('group')
  encodeDrafts(schema, grouped, input.updates, 'update')
  lap('encode')
  const updates = splitHandoffs(grouped)
  lap('handoffs')
  const deletes = groupStored(schema, input.deletes, 'delete')
  lap('group')
  encodeDrafts(schema, deletes, input.deletes, 'delete')
  lap('encode')
  checkDistinctRows(updates.length + deletes.length === 0 ? inserts : [...inserts, ...updates, ...deletes])
  lap('distinct')
  const { statements, waves } = orderStatements(schema, inserts, updates, deletes)
  lap('order')
`,
  },
])

const env = await startBenchEnv(() => {})
try {
  for (const driver of values.drivers.split(',') as DriverName[]) {
    const c = await openDriver(driver, env.target.url, 1)
    const side: FlushSide = {
      root: await core.EntityManager.connect(c.client, { pipeline: 'burst', versionColumn: 'version' }),
      units: new Units(c.query),
    }
    const raw = await selectSeries(['raw-simple'], [driver])[0]!.open(env.target, { pool: 1 })
    try {
      for (const cell of values.cells.split(',')) {
        const m = /^(\d+)x(\d+)$/.exec(cell)
        const work = m ? matrixWork(Number(m[1]), Number(m[2])) : shopWork(cell as ShopCell)
        side.units = new Units(c.query)
        const flush: number[] = []
        const rawFlush: number[] = []
        const planning: number[] = []
        const stages: Record<string, number[]> = {}
        for (let i = 0; i < WARMUP + flushes; i++) {
          const em = await prepareFlush(side, work)
          measured.planCpu = 0
          measured.stages = {}
          const t = process.cpuUsage()
          await em.flush()
          const d = process.cpuUsage(t)
          if (work.shop) await raw.prepare?.(work)
          const r = process.cpuUsage()
          await raw.flush(work)
          const dr = process.cpuUsage(r)
          if (i < WARMUP) continue
          flush.push(d.user + d.system)
          rawFlush.push(dr.user + dr.system)
          planning.push(measured.planCpu)
          for (const [k, v] of Object.entries(measured.stages)) {
            stages[k] ??= []
            stages[k].push(v)
          }
        }
        const [a, b, p] = [median(flush), median(rawFlush), median(planning)]
        const less = median(flush.map((x, i) => x - planning[i]!))
        const split = Object.entries(stages)
          .map(([k, v]) => `${k} ${median(v).toFixed(0)}`)
          .join(', ')
        console.log(
          `${cell.padEnd(6)} ${driver.padEnd(11)} p50 µs: flush ${a}, raw-simple ${b} (${(a / b).toFixed(2)}x); planning ${p} (${((100 * p) / a).toFixed(0)}%), the flush less its planning ${(less / b).toFixed(2)}x; stages: ${split}`,
        )
      }
    } finally {
      await raw.close()
      await c.close()
    }
  }
} finally {
  await env.stop()
}
