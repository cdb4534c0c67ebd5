import { EntityManager } from '@pipeflush/core'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, expect, test } from 'vitest'

const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table author (id bigserial primary key, name text not null);
    create table book (id bigserial primary key, title text not null, author_id bigint not null references author);
    create table review (id serial primary key, book_id bigint not null references book, stars int not null);
  `)
})

test('smoke', async () => {
  for (const pipeline of ['off', 'waves', 'burst'] as const) {
    const { sql, counter } = db.connect({ max: 1 })
    const root = await EntityManager.connect(sql, { pipeline })
    for (let i = 0; i < 3; i++) {
      const em = root.fork()
      const ada = em.create('author', { name: `Ada ${i}` })
      const book = em.create('book', { title: 'Notes', author_id: ada })
      em.create('review', { book_id: book, stars: 5 })
      counter.reset()
      const report = await em.flush()
      console.log(pipeline, i, report.roundTrips, counter.read().roundTrips, report.cold, report.idFetch)
      const [old] = await em.find('book', { id: book['id'] })
      old!['title'] = 'Final'
      counter.reset()
      const r2 = await em.flush()
      console.log(pipeline, 'update', r2.roundTrips, counter.read().roundTrips, r2.cold)
    }
  }
  const rows = await db.sql`select count(*)::int as n from book where title = 'Final'`
  expect(rows[0]?.['n']).toBe(9)
})
