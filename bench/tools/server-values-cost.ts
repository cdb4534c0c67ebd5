// What reading back server-filled values costs: the same flushes (R new rows of a table whose id, a
// timestamptz DEFAULT and an identity column are filled by the server) with `serverValues` on and off,
// interleaved on two connections, on each driver. Prints the median client CPU per flush and the bytes
// each flush sent and received (counted at the socket).
//   npx node --conditions=@pipeflush/source bench/tools/server-values-cost.ts   (N=600 R=10 by default)
import { EntityManager } from '@pipeflush/core'
import { createRoundTripCounter, openClient, startPostgres } from '@pipeflush/testkit'

const N = Number(process.env['N'] ?? 600)
const R = Number(process.env['R'] ?? 10)
const WARMUP = 100

const server = await startPostgres()
const admin = openClient('postgres.js', server.url, createRoundTripCounter(), { max: 1 })
await admin.query(
  'create table if not exists ev (id bigserial primary key, device text not null, at timestamptz not null default now(), n int generated always as identity)',
)
for (const driver of ['postgres.js', 'pg'] as const) {
  const sides = new Map<
    boolean,
    { root: EntityManager; counter: ReturnType<typeof createRoundTripCounter> }
  >()
  const measured = new Map<boolean, { cpu: number[]; bytesIn: number; bytesOut: number }>()
  for (const on of [true, false]) {
    const counter = createRoundTripCounter()
    const c = openClient(driver, server.url, counter, { max: 1 })
    sides.set(on, {
      root: await EntityManager.connect(c.client, { serverValues: on, idBlockSize: 5000 }),
      counter,
    })
    measured.set(on, { cpu: [], bytesIn: 0, bytesOut: 0 })
  }
  for (let i = 0; i < N + WARMUP; i++) {
    for (const on of i % 2 === 0 ? [true, false] : [false, true]) {
      const { root, counter } = sides.get(on)!
      const em = root.fork()
      for (let r = 0; r < R; r++) em.create('ev', { device: `d${r}` })
      counter.reset()
      const before = process.cpuUsage()
      await em.flush()
      const cpu = process.cpuUsage(before)
      if (i < WARMUP) continue
      const m = measured.get(on)!
      const bytes = counter.read()
      m.cpu.push(cpu.user + cpu.system)
      m.bytesIn += bytes.bytesIn
      m.bytesOut += bytes.bytesOut
    }
  }
  for (const on of [true, false]) {
    const m = measured.get(on)!
    const median = [...m.cpu].sort((a, b) => a - b)[Math.floor(m.cpu.length / 2)]
    console.log(
      `${driver}, serverValues ${on}: client CPU median ${median} µs/flush; per flush of ${R} rows ${Math.round(m.bytesIn / N)} bytes in, ${Math.round(m.bytesOut / N)} out`,
    )
  }
}
process.exit(0)
