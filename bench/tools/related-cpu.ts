// Reading a relation of every entity of a large graph: `--authors` authors with `--books` books each,
// read by one graph load (`em.find('author', {}, { with: { books: true } })`, its time by the clock
// beside), then `author.books` read for every author, timed by the clock (the read itself sends
// nothing). Each author's books are looked up in the unit of work's index of the books by
// `author_id` (see `unit-of-work/referring-index.ts`), made at the first read; a scan of every book
// for every author grew with the product of the two counts.
//
//   npx node --conditions=@pipeflush/source bench/tools/related-cpu.ts [--authors 1000] [--books 10] [--rounds 3]
import { parseArgs } from 'node:util'
import { EntityManager } from '@pipeflush/core'
import { createDatabase, dropDatabase, startPostgres } from '@pipeflush/testkit'
import postgres from 'postgres'

const { values } = parseArgs({
  options: {
    authors: { type: 'string', default: '1000' },
    books: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
  },
})
const authors = Number(values.authors)
const books = authors * Number(values.books)
const server = await startPostgres()
try {
  const url = await createDatabase(server.url, 'pf_related_cpu')
  const sql = postgres(url, { max: 2, onnotice: () => {} })
  try {
    await sql.unsafe(`drop table if exists book; drop table if exists author;
      create table author (id serial primary key, name text not null);
      create table book (id bigserial primary key, author_id int not null references author, title text not null);
      insert into author (name) select 'author ' || g from generate_series(1, ${authors}) g;
      insert into book (author_id, title) select 1 + (g % ${authors}), 'book ' || g from generate_series(1, ${books}) g;`)
    const root = await EntityManager.connect(sql)
    for (let round = 0; round < Number(values.rounds); round++) {
      const em = root.fork()
      const started = performance.now()
      const loaded = await em.find('author', {}, { with: { books: true } })
      const load = performance.now() - started
      const t = performance.now()
      let n = 0
      for (const a of loaded) n += (a['books'] as unknown[]).length
      const ms = performance.now() - t
      console.log(
        `${loaded.length} authors, ${n} books: loaded in ${load.toFixed(0)} ms, author.books read for every author in ${ms.toFixed(1)} ms`,
      )
    }
  } finally {
    await sql.end({ timeout: 5 })
    await dropDatabase(server.url, 'pf_related_cpu')
  }
} finally {
  await server.stop()
}
