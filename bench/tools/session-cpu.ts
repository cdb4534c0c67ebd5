// Client CPU of pipeflush's session layer alone, beside the raw driver: a connection reserved within a
// deadline, one `select 1` sent through the guard a flush sends through, the connection released and
// its round trips read (`RuntimeDriver.reserve`, `FlushSession`, as `flush/flush-connection.ts` does),
// against the driver's own `reserve()` / `pool.connect()`, `select 1` and release. Each pair runs in
// turn, one connection, medians of `process.cpuUsage` around each (µs). Internal modules are imported
// from the core's source: what is measured has no public entry of its own.
//
//   npx node --conditions=@pipeflush/source bench/tools/session-cpu.ts [--samples 3000]
import { parseArgs } from 'node:util'
import { createDatabase, startPostgres } from '@pipeflush/testkit'
import type pg from 'pg'
import postgres from 'postgres'
import { driverFor } from '../../packages/core/src/drivers/driver-for.ts'
import { FlushSession } from '../../packages/core/src/flush/flush-session.ts'
import { toolPool } from '../src/series/tool-pool.ts'

const { values } = parseArgs({ options: { samples: { type: 'string', default: '3000' } } })
const samples = Number(values.samples)
const server = await startPostgres()
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!
const cpu = async (fn: () => Promise<void>) => {
  const t = process.cpuUsage()
  await fn()
  const d = process.cpuUsage(t)
  return d.user + d.system
}
try {
  const url = await createDatabase(server.url, 'pf_session_cpu')
  for (const name of ['postgres.js', 'pg'] as const) {
    const pool =
      name === 'pg' ? toolPool({ connectionString: url, max: 1, pipeline: true } as pg.PoolConfig) : undefined
    const sql = name === 'postgres.js' ? postgres(url, { max: 1, onnotice: () => {} }) : undefined
    const driver = driverFor(pool ?? sql)
    const layered = async () => {
      const deadline = performance.now() + 4000
      const fs = new FlushSession(await driver.reserve({ deadline }), deadline)
      try {
        await fs.simple('select 1', { rowSets: 1 })
      } finally {
        fs.release()
      }
      fs.roundTrips()
      await fs.openings()
    }
    const raw = async () => {
      if (pool) {
        const c = await pool.connect()
        try {
          await c.query('select 1')
        } finally {
          c.release()
        }
        return
      }
      const r = await sql!.reserve()
      try {
        await r.unsafe('select 1')
      } finally {
        r.release()
      }
    }
    for (let i = 0; i < 300; i++) {
      await layered()
      await raw()
    }
    const a: number[] = []
    const b: number[] = []
    for (let i = 0; i < samples; i++) {
      a.push(await cpu(layered))
      b.push(await cpu(raw))
    }
    const [p, r] = [median(a), median(b)]
    console.log(
      `${name.padEnd(12)} session layer p50 ${p} µs  raw driver p50 ${r} µs  difference ${p - r} µs`,
    )
    await pool?.end()
    await sql?.end()
  }
} finally {
  await server.stop()
}
