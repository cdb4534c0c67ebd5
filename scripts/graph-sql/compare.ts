// node --conditions=@pipeflush/source scripts/graph-sql/compare.ts [--authors 2000] [--runs 400] [--roots 1]
// How a graph load's levels are best selected: through their parent's keys by `in (subquery)` (what
// pipeflush sends), or by lateral joins from the roots. Seeds a bookstore (authors, 10 books each, 5
// reviews and 3 tag links per book), then times, on one connection at no injected latency, the six
// selects of `author 1 with books { reviews, tags, publisher }` sent as one simple-protocol message,
// in both forms, alternating, and prints medians and the rows each returned (they must be the same).
import { parseArgs } from 'node:util'
import { startPostgres } from '@pipeflush/testkit'
import postgres from 'postgres'

const { values } = parseArgs({
  options: {
    authors: { type: 'string', default: '2000' },
    runs: { type: 'string', default: '400' },
    roots: { type: 'string', default: '1' },
  },
})
const authors = Number(values.authors)
const runs = Number(values.runs)
const roots = Number(values.roots)
const pg = await startPostgres()
const sql = postgres(pg.url, { max: 1, onnotice: () => {} })
try {
  await sql.unsafe(`
    drop table if exists g_book_tag, g_review, g_book, g_tag, g_publisher, g_author;
    create table g_publisher (id bigserial primary key, name text not null);
    create table g_author (id bigserial primary key, name text not null);
    create table g_book (id bigserial primary key, author_id bigint not null references g_author, publisher_id bigint references g_publisher, title text not null);
    create index on g_book (author_id);
    create table g_review (id bigserial primary key, book_id bigint not null references g_book, stars int2 not null, body text);
    create index on g_review (book_id);
    create table g_tag (id bigserial primary key, name text not null);
    create table g_book_tag (book_id bigint not null references g_book, tag_id bigint not null references g_tag, primary key (book_id, tag_id));
    create index on g_book_tag (tag_id);
    insert into g_publisher (name) select 'p' || g from generate_series(1, 50) g;
    insert into g_tag (name) select 't' || g from generate_series(1, 200) g;
    insert into g_author (name) select 'a' || g from generate_series(1, ${authors}) g;
    insert into g_book (author_id, publisher_id, title) select a, 1 + (a * 7 + b) % 50, 'b' || b from generate_series(1, ${authors}) a, generate_series(1, 10) b;
    insert into g_review (book_id, stars, body) select b, 1 + (b + r) % 5, 'review' from generate_series(1, ${authors * 10}) b, generate_series(1, 5) r;
    insert into g_book_tag select b, 1 + (b * 3 + k * 17) % 200 from generate_series(1, ${authors * 10}) b, generate_series(1, 3) k on conflict do nothing;
    analyze;
  `)
  const key = roots === 1 ? `t0.id = '1'::int8` : `t0.id <= '${roots}'::int8`
  const root = `g_author as t0 where ${key}`
  const books = `g_book as t1 where (t1.author_id) in (select t0.id from ${root})`
  const subquery = [
    `select t0.id::text, t0.name from ${root} order by t0.id`,
    `select t1.id::text, t1.title from ${books} order by t1.id`,
    `select t2.id::text, t2.stars::text from g_review as t2 where (t2.book_id) in (select t1.id from ${books}) order by t2.id`,
    `select t3.book_id::text, t3.tag_id::text from g_book_tag as t3 where (t3.book_id) in (select t1.id from ${books}) order by t3.book_id, t3.tag_id`,
    `select t4.id::text, t4.name from g_tag as t4 where (t4.id) in (select t5.tag_id from g_book_tag as t5 where (t5.book_id) in (select t1.id from ${books})) order by t4.id`,
    `select t6.id::text, t6.name from g_publisher as t6 where (t6.id) in (select t1.publisher_id from ${books}) order by t6.id`,
  ].join(';\n')
  const lateral = [
    `select t0.id::text, t0.name from ${root} order by t0.id`,
    `select t1.id::text, t1.title from g_author as t0 cross join lateral (select * from g_book b where b.author_id = t0.id) as t1 where ${key} order by t1.id`,
    `select t2.id::text, t2.stars::text from g_author as t0 cross join lateral (select id from g_book b where b.author_id = t0.id) as t1 cross join lateral (select * from g_review r where r.book_id = t1.id) as t2 where ${key} order by t2.id`,
    `select t3.book_id::text, t3.tag_id::text from g_author as t0 cross join lateral (select id from g_book b where b.author_id = t0.id) as t1 cross join lateral (select * from g_book_tag l where l.book_id = t1.id) as t3 where ${key} order by t3.book_id, t3.tag_id`,
    `select distinct on (t4.id) t4.id::text, t4.name from g_author as t0 cross join lateral (select id from g_book b where b.author_id = t0.id) as t1 cross join lateral (select tag_id from g_book_tag l where l.book_id = t1.id) as t3 cross join lateral (select * from g_tag t where t.id = t3.tag_id) as t4 where ${key} order by t4.id`,
    `select distinct on (t6.id) t6.id::text, t6.name from g_author as t0 cross join lateral (select publisher_id from g_book b where b.author_id = t0.id) as t1 cross join lateral (select * from g_publisher p where p.id = t1.publisher_id) as t6 where ${key} order by t6.id`,
  ].join(';\n')
  const rowsOf = (r: unknown) => JSON.stringify((r as unknown[][]).map((set) => [...set]))
  const a = rowsOf(await sql.unsafe(subquery))
  const b = rowsOf(await sql.unsafe(lateral))
  if (a !== b) throw new Error('the two forms return different rows')
  const times: Record<'subquery' | 'lateral', number[]> = { subquery: [], lateral: [] }
  for (let i = 0; i < runs; i++) {
    for (const [name, text] of [
      ['subquery', subquery],
      ['lateral', lateral],
    ] as const) {
      const started = performance.now()
      await sql.unsafe(text)
      times[name].push(performance.now() - started)
    }
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
  const p95 = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length * 0.95)]!
  console.log(
    `${roots} root(s) of ${authors} authors, ${authors * 10} books, ${authors * 50} reviews; ${runs} runs each, alternating; same rows: yes`,
  )
  for (const name of ['subquery', 'lateral'] as const)
    console.log(
      `${name.padEnd(8)} median ${median(times[name]).toFixed(3)} ms, p95 ${p95(times[name]).toFixed(3)} ms`,
    )
} finally {
  await sql.end({ timeout: 1 })
  await pg.stop()
}
