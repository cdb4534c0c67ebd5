// Client CPU of one graph load (an author with their books, the books' reviews, tag links, tags and
// publishers: the bookstore example's PATCH read, six selects in one round trip) through pipeflush,
// per load: p50 of `process.cpuUsage` around `em.load` on a fresh fork, on one warm connection with no
// added latency. `--idle <ms>` waits that long before each load, as a request waits for the network:
// the same code then runs on cold caches (on this project's 2-core virtual machines a 20 ms wait about
// doubles it), which is what a request at 20 ms RTT pays.
//
//   npx node --conditions=@pipeflush/source bench/tools/read-cpu.ts [--drivers pg,postgres.js]
//     [--loads 300] [--idle 0,20]
import { parseArgs } from 'node:util'
import { EntityManager } from '@pipeflush/core'
import { createDatabase, startPostgres } from '@pipeflush/testkit'
import pg from 'pg'
import postgres from 'postgres'

const { values } = parseArgs({
  options: {
    drivers: { type: 'string', default: 'pg,postgres.js' },
    loads: { type: 'string', default: '300' },
    idle: { type: 'string', default: '0,20' },
  },
})
const loads = Number(values.loads)
const idles = values.idle.split(',').map(Number)
const DDL = `
  create table publisher (id serial primary key, name text not null unique);
  create table author (id serial primary key, name text not null, bio text);
  create table book (id bigserial primary key, author_id int not null references author,
    publisher_id int references publisher, title text not null, price numeric(10, 2), published_on date);
  create table tag (id serial primary key, name text not null unique);
  create table book_tag (book_id bigint not null references book, tag_id int not null references tag,
    primary key (book_id, tag_id));
  create table review (id bigserial primary key, book_id bigint not null references book,
    stars int not null, body text);
  insert into publisher (name) values ('Parnassus'), ('Ace'), ('Harper & Row');
  insert into author (name, bio) values ('Ursula K. Le Guin', 'Earthsea and the Hainish Cycle.');
  insert into book (author_id, publisher_id, title, price, published_on) values
    (1, 1, 'A Wizard of Earthsea', 9.99, '1968-11-01'), (1, 2, 'The Left Hand of Darkness', 14.50, '1969-03-01'),
    (1, 3, 'The Dispossessed', 12.00, null);
  insert into tag (name) values ('fantasy'), ('classic'), ('coming-of-age'), ('science-fiction'), ('utopia');
  insert into book_tag values (1, 1), (1, 2), (1, 3), (2, 4), (2, 2), (3, 4), (3, 5);
  insert into review (book_id, stars, body) values (1, 5, 'A true name.'), (1, 4, null), (1, 2, 'Too many shadows.'),
    (2, 5, null), (2, 1, 'Cold.'), (3, 5, 'An ambiguous utopia.');
`
const WITH = { books: { reviews: true, book_tags: true, tags: true, publisher: true } } as const
const median = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!

const server = await startPostgres()
try {
  const url = await createDatabase(server.url, 'pf_read_cpu')
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  await admin.unsafe(DDL)
  await admin.end()
  for (const driver of values.drivers.split(',')) {
    const client =
      driver === 'pg'
        ? new pg.Pool({ connectionString: url, max: 1, pipeline: true } as pg.PoolConfig)
        : postgres(url, { max: 1, onnotice: () => {} })
    const root = await EntityManager.connect(client)
    for (let i = 0; i < 50; i++) await root.fork().load('author', 1, { with: WITH })
    for (const idle of idles) {
      const cpu: number[] = []
      for (let i = 0; i < loads; i++) {
        const em = root.fork()
        if (idle > 0) await new Promise((resolve) => setTimeout(resolve, idle))
        const before = process.cpuUsage()
        await em.load('author', 1, { with: WITH })
        const d = process.cpuUsage(before)
        cpu.push(d.user + d.system)
      }
      console.log(
        `${driver.padEnd(12)} idle ${String(idle).padStart(3)} ms: client CPU p50 ${median(cpu)} µs per graph load`,
      )
    }
    await (client as { end(): Promise<void> }).end()
  }
} finally {
  await server.stop()
}
