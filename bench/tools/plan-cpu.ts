// CPU of a flush's work on the client alone, no connection: forking, creating the rows and planning
// them (`em.plan()`: validated, encoded, ordered, texts written) for the plain-insert cell, timed in
// a loop (µs per unit, mean of `--units`). The part of a flush's client CPU that is pipeflush's own.
// Then the same plan between flushes, as a request meets it after waiting for the network: each unit
// planned twice in a row and then flushed (p50 of the first and of the second `em.plan()`, 1,000
// units): the first pays for the caches the wait left cold.
//
//   npx node --conditions=@pipeflush/source bench/tools/plan-cpu.ts [--tables 10] [--rows 1] [--units 20000]
import { startBenchEnv } from '../src/env/services.ts'
import { openDriver } from '../src/series/driver-client.ts'
import { rootFor } from '../src/series/pipeflush.ts'
import { nextValues, tableNames } from '../src/workload.ts'

const args = process.argv.slice(2)
const arg = (name: string) => {
  const i = args.indexOf(`--${name}`)
  return i < 0 ? undefined : args[i + 1]
}
const tables = tableNames(Number(arg('tables') ?? 10))
const rows = Number(arg('rows') ?? 1)
const units = Number(arg('units') ?? 20000)
const env = await startBenchEnv(() => {})
try {
  const c = await openDriver('pg', env.target.url, 1)
  try {
    const root = await rootFor(c.client, 'burst')
    const us = (fn: () => void) => {
      for (let i = 0; i < units / 4; i++) fn()
      const t = process.cpuUsage()
      for (let i = 0; i < units; i++) fn()
      const d = process.cpuUsage(t)
      return ((d.user + d.system) / units).toFixed(1)
    }
    const values = nextValues(rows)
    const make = () => {
      const em = root.fork()
      for (const table of tables) for (const v of values) em.create(table, { v })
      return em
    }
    console.log(`${tables.length}x${rows} fork ${us(() => root.fork())} µs`)
    console.log(`${tables.length}x${rows} fork + create ${us(make)} µs`)
    console.log(`${tables.length}x${rows} fork + create + plan ${us(() => make().plan())} µs`)
    const first: number[] = []
    const second: number[] = []
    const cpu = () => {
      const u = process.cpuUsage()
      return u.user + u.system
    }
    for (let i = 0; i < 1_100; i++) {
      const em = make()
      const t0 = cpu()
      em.plan()
      const t1 = cpu()
      em.plan()
      const t2 = cpu()
      await em.flush()
      if (i < 100) continue
      first.push(t1 - t0)
      second.push(t2 - t1)
    }
    const p50 = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!
    console.log(
      `${tables.length}x${rows} plan between flushes: first ${p50(first)} µs, again at once ${p50(second)} µs (p50s)`,
    )
  } finally {
    await c.close()
  }
} finally {
  await env.stop()
}
