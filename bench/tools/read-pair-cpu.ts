// Client CPU of a read batch through pipeflush beside the raw driver sending the same selects and
// decoding the same rows: the bookstore's graph load (`em.load('author', 1, { with })` on a fresh
// fork, six selects in one round trip) against, on the same driver and connection pool of one:
// - raw-pipeline: the selects pipeflush sent (captured once at the driver), pipelined as prepared
//   statements in one `Promise.all`: how pipeflush sends them on pg;
// - raw-simple: the same selects in one simple-protocol message, their parameters inlined as literals:
//   how pipeflush sends them on postgres.js.
// The line of each driver marks the raw form that sends pipeflush's own messages (`= same messages`):
// the read goal's comparison.
// Each load and each raw send in turn, `process.cpuUsage` around each; p50 of each and the ratios.
// On pg, the load's phases besides (see `src/measure/pool-marks.ts`): planning up to `pool.connect()`,
// the pool's connect, preparing up to the first `query()`, the selects sent and answered, settling
// (decoding and tracking the rows, linking them) up to the load's end.
// What pipeflush does beyond the driver: the selects planned from the `with` tree, the rows decoded to
// the columns' values, entities tracked and their relations linked.
//
//   npx node --conditions=@pipeflush/source bench/tools/read-pair-cpu.ts [--drivers pg,postgres.js]
//     [--loads 2000]
import { parseArgs } from 'node:util'
import { EntityManager } from '@pipeflush/core'
import { createDatabase, startPostgres } from '@pipeflush/testkit'
import pg from 'pg'
import postgres from 'postgres'
import { markPool, phasesOf } from '../src/measure/pool-marks.ts'
import { toolPool } from '../src/series/tool-pool.ts'
import { DDL, WITH } from './bookstore-graph.ts'

const { values } = parseArgs({
  options: {
    drivers: { type: 'string', default: 'pg,postgres.js' },
    loads: { type: 'string', default: '2000' },
  },
})
const loads = Number(values.loads)
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!

/** One select as pipeflush sent it. */
interface Captured {
  readonly text: string
  readonly values: readonly (string | null)[]
}

/** The selects of one graph load, captured where pg's client takes a query. */
async function captureSelects(url: string): Promise<Captured[]> {
  const pool = toolPool({ connectionString: url, max: 1, pipeline: true } as pg.PoolConfig)
  const root = await EntityManager.connect(pool)
  const captured: Captured[] = []
  const query = pg.Client.prototype.query
  pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    const c = config as { text?: string; values?: (string | null)[] }
    if (typeof c === 'object' && c !== null && typeof c.text === 'string')
      captured.push({ text: c.text, values: c.values ?? [] })
    return (query as (...a: unknown[]) => unknown).call(this, config, ...rest)
  } as typeof query
  try {
    await root.fork().load('author', 1, { with: WITH })
  } finally {
    pg.Client.prototype.query = query
    await pool.end()
  }
  if (captured.length === 0) throw new Error('no select captured')
  return captured
}

/** `text` with `$n` replaced by the n-th value as a quoted literal (`null` for null). */
function inline(text: string, params: readonly (string | null)[]): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const p = params[Number(n) - 1]
    return p === null || p === undefined ? 'null' : `'${p.replaceAll("'", "''")}'`
  })
}

/** Client CPU of `fn`, µs. */
async function cpu(fn: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage()
  await fn()
  const d = process.cpuUsage(before)
  return d.user + d.system
}

const server = await startPostgres()
try {
  const url = await createDatabase(server.url, 'pf_read_pair_cpu')
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  await admin.unsafe(DDL)
  await admin.end()
  const selects = await captureSelects(url)
  const simpleText = selects.map((s) => inline(s.text, s.values)).join(';\n')
  for (const driver of values.drivers.split(',')) {
    const pool =
      driver === 'pg'
        ? toolPool({ connectionString: url, max: 1, pipeline: true } as pg.PoolConfig)
        : undefined
    const sql = driver === 'pg' ? undefined : postgres(url, { max: 1, onnotice: () => {} })
    const root = await EntityManager.connect(pool ?? sql)
    let rows = 0
    /** `send` on a connection of the pool, the raw driver's own way: reserved, sent, released. */
    const onConnection = async (send: {
      pg: (client: pg.PoolClient) => Promise<number>
      postgres: (r: postgres.ReservedSql) => Promise<number>
    }) => {
      if (pool) {
        const client = await pool.connect()
        try {
          rows = await send.pg(client)
        } finally {
          client.release()
        }
        return
      }
      const r = await sql!.reserve()
      try {
        rows = await send.postgres(r)
      } finally {
        r.release()
      }
    }
    const raw = {
      pipeline: () =>
        onConnection({
          pg: async (client) =>
            (
              await Promise.all(
                selects.map((s, i) =>
                  client.query({ name: `raw_read_${i}`, text: s.text, values: [...s.values] }),
                ),
              )
            ).reduce((n, r) => n + r.rows.length, 0),
          postgres: async (r) =>
            (
              await Promise.all(selects.map((s) => r.unsafe(s.text, s.values as string[], { prepare: true })))
            ).reduce((n, x) => n + x.length, 0),
        }),
      simple: () =>
        onConnection({
          pg: async (client) =>
            ((await client.query(simpleText)) as unknown as pg.QueryResult[]).reduce(
              (n, r) => n + r.rows.length,
              0,
            ),
          // Several statements in one message: one result per statement.
          postgres: async (r) =>
            ((await r.unsafe(simpleText)) as unknown as unknown[][]).reduce((n, x) => n + x.length, 0),
        }),
    }
    const load = () => root.fork().load('author', 1, { with: WITH })
    let marks: ReturnType<typeof markPool> | undefined
    const phases = {
      plan: [] as number[],
      connect: [] as number[],
      prepare: [] as number[],
      send: [] as number[],
      settle: [] as number[],
    }
    /** A load, its phases kept (pg). */
    const marked = async () => {
      const u = process.cpuUsage()
      const start = u.user + u.system
      marks?.begin()
      await load()
      const v = process.cpuUsage()
      const split = marks ? phasesOf(start, marks.end(), v.user + v.system) : undefined
      if (split) for (const k of Object.keys(phases) as (keyof typeof phases)[]) phases[k].push(split[k])
    }
    for (let i = 0; i < 100; i++) {
      await load()
      await raw.pipeline()
      await raw.simple()
    }
    const ours: number[] = []
    const piped: number[] = []
    const simple: number[] = []
    for (let i = 0; i < loads; i++) {
      ours.push(await cpu(load))
      piped.push(await cpu(raw.pipeline))
      simple.push(await cpu(raw.simple))
    }
    const [a, b, c] = [median(ours), median(piped), median(simple)]
    // pg sends a tick's selects pipelined and named, postgres.js as one simple-protocol message.
    const same = (form: 'pipeline' | 'simple') =>
      (driver === 'pg') === (form === 'pipeline') ? ' = same messages' : ''
    console.log(
      `${driver.padEnd(12)} ${selects.length} selects, ${rows} rows: pipeflush p50 ${a} µs, raw-pipeline ${b} µs (${(a / b).toFixed(2)}x${same('pipeline')}), raw-simple ${c} µs (${(a / c).toFixed(2)}x${same('simple')})`,
    )
    // The phases apart, after the p50s: marking costs a few µs a call, which the ratios must not carry.
    if (pool) {
      marks = markPool(pool)
      for (let i = 0; i < Math.min(loads, 1_000); i++) await marked()
    }
    if (phases.plan.length > 0)
      console.log(
        `${''.padEnd(12)} its phases (p50 µs): ${Object.entries(phases)
          .map(([k, v]) => `${k} ${median(v)}`)
          .join(', ')}`,
      )
    await (pool ?? sql!).end()
  }
} finally {
  await server.stop()
}
