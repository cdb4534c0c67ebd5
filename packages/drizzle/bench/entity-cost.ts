// Client CPU per entity of @pipeflush/drizzle's names and values (core's column `name` and `mapping`)
// against core alone on the same table: rows read by `find` (decoded, mapped, tracked), entities
// created and planned (mapped, validated, encoded), and a flush of loaded rows that changed nothing
// (each mapped column compared in place). The Drizzle definition maps five of its eight columns
// (bigint and numeric as numbers, a timestamp as a Date from the server's text, jsonb read through
// Drizzle), core alone reads them in its own representation. Medians of `--runs` runs of `--rows`
// rows each, `process.cpuUsage` around each step, one warm connection, no added latency.
//
//   npx node --conditions=@pipeflush/source packages/drizzle/bench/entity-cost.ts [--rows 2000] [--runs 15]
import { parseArgs } from 'node:util'
import { type Entity, EntityManager } from '@pipeflush/core'
import { createDatabase, startPostgres } from '@pipeflush/testkit'
import { bigint, bigserial, boolean, jsonb, numeric, pgTable, text, timestamp } from 'drizzle-orm/pg-core'
import { drizzle } from 'drizzle-orm/postgres-js'
import postgres from 'postgres'
import { createEntityManagerFactory } from '../src/index.ts'

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '2000' }, runs: { type: 'string', default: '15' } },
})
const rows = Number(values.rows)
const runs = Number(values.runs)

const items = pgTable('item', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  ownerId: bigint('owner_id', { mode: 'number' }).notNull(),
  title: text('title').notNull(),
  price: numeric('price', { precision: 10, scale: 2 }).notNull(),
  amount: numeric('amount', { mode: 'number' }).notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  payload: jsonb('payload').notNull(),
  flag: boolean('flag').notNull(),
})
const DDL = `create table item (id bigserial primary key, owner_id bigint not null, title text not null,
  price numeric(10, 2) not null, amount numeric not null, created_at timestamptz not null, payload jsonb not null,
  flag boolean not null)`

const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!
/** CPU microseconds of `fn` per row. */
async function cpu(fn: () => Promise<unknown> | unknown): Promise<number> {
  const before = process.cpuUsage()
  await fn()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / rows
}

const server = await startPostgres()
try {
  const url = await createDatabase(server.url, 'pf_drizzle_entity_cost')
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  await sql.unsafe(DDL)
  await sql.unsafe(`insert into item (owner_id, title, price, amount, created_at, payload, flag)
    select g, 'item ' || g, g * 1.25, g / 3.0, now() - g * interval '1 minute', jsonb_build_object('n', g), g % 2 = 0
    from generate_series(1, ${rows}) as g`)
  const core = await EntityManager.connect(sql)
  const factory = await createEntityManagerFactory({ db: drizzle(sql, { schema: { items } }) })
  const coreRow = (i: number): Record<string, unknown> => ({
    owner_id: String(i),
    title: `item ${i}`,
    price: '1.25',
    amount: '0.5',
    created_at: new Date(i),
    payload: { n: i },
    flag: true,
  })
  const drizzleRow = (i: number) => ({
    ownerId: i,
    title: `item ${i}`,
    price: '1.25',
    amount: 0.5,
    createdAt: new Date(i),
    payload: { n: i },
    flag: true,
  })
  const cases = {
    core: {
      find: () => core.fork().find('item'),
      createAndPlan: () => {
        const em = core.fork()
        for (let i = 0; i < rows; i++) em.create('item', coreRow(i))
        return em.plan()
      },
      unchangedFlush: async () => {
        const em = core.fork()
        const found: Entity[] = await em.find('item')
        return cpu(() => em.flush()).then((us) => (found.length === rows ? us : Number.NaN))
      },
    },
    drizzle: {
      find: () => factory.fork().find(items),
      createAndPlan: () => {
        const em = factory.fork()
        for (let i = 0; i < rows; i++) em.create(items, drizzleRow(i))
        return em.plan()
      },
      unchangedFlush: async () => {
        const em = factory.fork()
        const found = await em.find(items)
        return cpu(() => em.flush()).then((us) => (found.length === rows ? us : Number.NaN))
      },
    },
  }
  const results: Record<string, Record<string, number[]>> = {}
  for (let run = 0; run < runs + 3; run++) {
    // Alternating, the first three runs warm-up.
    for (const [name, c] of Object.entries(cases)) {
      const find = await cpu(c.find)
      const create = await cpu(c.createAndPlan)
      const flush = await c.unchangedFlush()
      if (run < 3) continue
      results[name] ??= { find: [], create: [], flush: [] }
      results[name].find!.push(find)
      results[name].create!.push(create)
      results[name].flush!.push(flush)
    }
  }
  console.log(`${rows} rows, median of ${runs} runs, µs of client CPU per entity`)
  console.log('case     find (read, map, track)  create + plan  unchanged flush (in-place compare)')
  for (const [name, r] of Object.entries(results)) {
    const f = (a: number[]) => median(a).toFixed(2).padStart(8)
    console.log(
      `${name.padEnd(8)} ${f(r['find']!)}                 ${f(r['create']!)}       ${f(r['flush']!)}`,
    )
  }
  await sql.end()
} finally {
  await server.stop()
}
