// What resolving references to upserted rows costs (see `packages/core/src/plan/rows/conflict-ref.ts`): a
// flush linking 10 books to 100 tags (1,000 `book_tag` rows) where the tags are upserts by name
// (`tag_id` looked up by name in the insert, a subselect per row) and where they are entities with
// known ids (the same insert without lookups). Each insert is run 30 times under EXPLAIN (ANALYZE) in
// a rolled-back transaction (the tags exist: the lookups find them); the planner's CPU for the flush
// (`em.plan()`, 200 times) is timed too, and the upsert of the 100 existing tags as sent (a no-op
// `do update ... returning`) against `do nothing`. Prints medians, in ms.
//   npx node --conditions=@pipeflush/source bench/tools/upsert-lookup-cost.ts
import { EntityManager } from '@pipeflush/core'
import { startBenchEnv } from '../src/env/services.ts'
import { toolPool } from '../src/series/tool-pool.ts'

const RUNS = 30
const PLANS = 200
const env = await startBenchEnv(() => {})
const pool = toolPool({ connectionString: env.target.url, max: 2, options: '-c search_path=lookup_cost' })
const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!
try {
  await pool.query(`
    create schema lookup_cost;
    set search_path = lookup_cost;
    create table tag (id bigserial primary key, name text not null unique);
    create table book (id bigserial primary key, title text not null);
    create table book_tag (book_id bigint not null references book, tag_id bigint not null references tag,
      primary key (book_id, tag_id));
    insert into tag (name) select 'tag-' || i from generate_series(1, 100) i;
    insert into book (title) select 'book-' || i from generate_series(1, 10) i;
    analyze;`)
  const root = await EntityManager.connect(pool, { copyRows: 1_000_000 }) // the same unnest form both ways
  const names = Array.from({ length: 100 }, (_, i) => `tag-${i + 1}`)
  const flushOf = async (upserted: boolean) => {
    const em = root.fork()
    const tags = upserted
      ? names.map((name) => em.upsert('tag', { name }, { conflict: ['name'], update: [] }))
      : await em.find('tag', { name: names })
    for (let book = 1; book <= 10; book++)
      for (const tag of tags) em.create('book_tag', { book_id: book, tag_id: tag })
    return em
  }
  const client = await pool.connect()
  const explain = async (text: string, params: readonly unknown[]) => {
    const execution: number[] = []
    for (let i = 0; i < RUNS; i++) {
      await client.query('begin')
      const r = await client.query(`explain (analyze, summary, format json) ${text}`, [...params])
      await client.query('rollback')
      execution.push((r.rows[0]['QUERY PLAN'][0] as Record<string, number>)['Execution Time']!)
    }
    return median(execution)
  }
  try {
    for (const upserted of [false, true]) {
      const em = await flushOf(upserted)
      const cpu: number[] = []
      for (let i = 0; i < PLANS; i++) {
        const started = performance.now()
        em.plan()
        cpu.push(performance.now() - started)
      }
      const insert = em
        .plan()
        .waves.flat()
        .find((s) => s.table === 'book_tag')!
      const server = await explain(insert.sql, insert.params)
      if (upserted) {
        // What `do nothing` would cost instead of the no-op update that returns the existing rows.
        const upsert = em
          .plan()
          .waves.flat()
          .find((s) => s.table === 'tag')!
        const nothing = `${upsert.sql.slice(0, upsert.sql.indexOf(' do update'))} do nothing`
        const [sent, instead] = [
          await explain(upsert.sql, upsert.params),
          await explain(nothing, upsert.params),
        ]
        console.log(
          `tag upsert (${upsert.rowCount} existing rows)             server ${sent.toFixed(3)} ms as sent (do update ... returning), ${instead.toFixed(3)} ms with do nothing`,
        )
      }
      const what = upserted ? 'tags upserted, tag_id looked up by name' : 'tags loaded, tag_id known'
      console.log(
        `${what.padEnd(40)} book_tag insert (${insert.rowCount} rows) server ${server.toFixed(3)} ms; plan() CPU ${median(cpu).toFixed(3)} ms`,
      )
    }
  } finally {
    client.release()
  }
} finally {
  await pool.end()
  await env.stop()
}
