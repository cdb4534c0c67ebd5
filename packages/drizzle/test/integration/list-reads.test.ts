import { isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { asc, count, desc, eq, gt, max, sql, sum } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'
import { drizzleOn, EMPTY_TABLES } from '../fixtures/databases.ts'
import { FULL, NULLS } from '../fixtures/kinds-rows.ts'
import { authors, books, DDL, kinds, reviews, tags } from '../fixtures/schema.ts'

// What a list endpoint reads, written the Drizzle way, in one round trip counted at the socket: a page
// of a Drizzle select with its graph (relations filtered, ordered, limited per row, counted), a total
// from a Drizzle select of aggregates, a find ordered and windowed by property.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(DDL)
})

const titles = (rows: readonly { title: string }[]) => rows.map((b) => b.title)

describe.each(TEST_DRIVERS)('%s: list reads', (driver) => {
  beforeAll(async () => {
    await db.sql.unsafe(EMPTY_TABLES)
    await db.sql.unsafe(`
      insert into author (full_name) values ('Ada'), ('Grace'), ('Alan');
      insert into book (author_id, title, isbn, created_at, updated_at) values
        (1, 'Notes', '1', '2024-01-01', now()), (1, 'Sketches', '2', '2024-01-03', now()),
        (2, 'Compilers', '3', '2024-01-02', now()), (2, 'Cobol', '4', '2024-01-05', now()),
        (3, 'Machines', '5', '2024-01-04', now());
      insert into review (book_id, stars, body) values
        (1, 5, 'a'), (1, 3, 'b'), (1, 4, 'c'), (3, 4, 'd'), (4, 2, 'e'), (5, 5, 'f'), (5, 4, 'g');
      insert into tag (name) values ('poetry'), ('math');
      insert into book_tag values (1, 1), (1, 2), (3, 2), (5, 2);
    `)
  })

  async function setup() {
    const { db: drizzle, counter, query } = drizzleOn(db, driver, 1)
    const factory = await createEntityManagerFactory({ db: drizzle })
    await query('select 1') // a warm connection: each read below counts its own round trips
    return { drizzle, counter, factory }
  }

  test('a page of a Drizzle select with its graph, counts, a total and a find: one round trip', async () => {
    const { drizzle, counter, factory } = await setup()
    const em = factory.fork()
    counter.reset()
    const [page, [total], writers] = await Promise.all([
      em.load(
        drizzle.select().from(books).where(gt(books.id, 1)).orderBy(desc(books.createdAt)).limit(2).offset(1),
        {
          with: {
            writer: true,
            reviews: { $where: { stars: [4, 5] }, $orderBy: [{ stars: 'desc' }, { body: 'asc' }], $limit: 1 },
            $count: ['reviews'],
          },
        },
      ),
      em.select(drizzle.select({ n: count(), stars: sum(reviews.stars).mapWith(Number) }).from(reviews)),
      em.find(authors, {}, { orderBy: { fullName: 'desc' }, limit: 2, with: { $count: ['works'] } }),
    ])
    expect(counter.read().roundTrips).toBe(1)
    // Books after the first, newest first: Cobol, Machines, Sketches, Compilers; offset 1, limit 2.
    expect(titles(page)).toEqual(['Machines', 'Sketches'])
    const [machines, sketches] = page as [(typeof page)[number], (typeof page)[number]]
    expect(machines.writer.fullName).toBe('Alan')
    expect(machines.reviews.map((r) => r.body)).toEqual(['f']) // the best of its 4-5 stars
    expect(sketches.reviews).toEqual([]) // loaded: none
    expect([em.countOf(machines, 'reviews'), em.countOf(sketches, 'reviews')]).toEqual([2, 0])
    expect(total).toEqual({ n: 7, stars: 27 })
    expect(writers.map((a) => [a.fullName, em.countOf(a, 'works')])).toEqual([
      ['Grace', 2],
      ['Alan', 1],
    ])
    // Rows are tracked: a book read twice is one object, and a change is flushed.
    expect(await em.load(books, 5)).toBe(machines)
    machines.title = 'Thinking machines'
    expect((await em.flush()).updated).toBe(1)
    const [stored] = await drizzle.select({ title: books.title }).from(books).where(eq(books.id, 5))
    expect(stored?.title).toBe('Thinking machines')
    await drizzle.update(books).set({ title: 'Machines' }).where(eq(books.id, 5))
  })

  test("find's orderBy, limit and offset and a with tree by property; relations from the foreign keys alone", async () => {
    const { counter, factory } = await setup()
    const em = factory.fork()
    counter.reset()
    const [ada, math] = await Promise.all([
      em.findOne(
        authors,
        { fullName: 'Ada' },
        {
          with: {
            works: {
              $where: { authorId: 1, isbn: ['1', '2'] },
              $orderBy: { createdAt: 'desc' },
              reviews: { $orderBy: { stars: 'asc' }, $limit: 2 },
            },
          },
        },
      ),
      // tags declares no relations(): its many-to-many through book_tag, by its derived name.
      em.findOne(
        tags,
        { name: 'math' },
        { with: { books: { $where: { authorId: [1, 3] } }, $count: ['books'] } },
      ),
    ])
    expect(counter.read().roundTrips).toBe(1)
    expect(titles(ada!.works)).toEqual(['Sketches', 'Notes'])
    expect(ada!.works[1]!.reviews.map((r) => r.stars)).toEqual([3, 4])
    const linked = (math as unknown as { books: { title: string }[] }).books
    expect(titles(linked).sort()).toEqual(['Machines', 'Notes'])
    expect(em.countOf(math!, 'books')).toBe(3)
    const windowed = await em.find(
      books,
      {},
      { orderBy: [{ authorId: 'desc' }, { title: 'asc' }], limit: 3, offset: 1 },
    )
    expect(titles(windowed)).toEqual(['Cobol', 'Compilers', 'Notes'])
    // A count not read, and a malformed option, fail as core says.
    expect(() => em.countOf(ada!, 'works')).toThrow(expect.objectContaining({ code: 'NOT_LOADED' }))
    const bad = await em.find(books, {}, { limit: -1 }).catch((e: unknown) => e)
    expect(isPipeflushError(bad, 'INVALID_VALUE')).toBe(true)
  })

  test('select(query) gives what Drizzle gives for the same select: joins, groups, every column kind', async () => {
    const { drizzle, factory } = await setup()
    await drizzle.insert(kinds).values([FULL, NULLS])
    const em = factory.fork()
    const a = alias(authors, 'a')
    const selects = [
      drizzle.select().from(kinds).orderBy(asc(kinds.id)),
      drizzle
        .select({ writer: a.fullName, n: count(reviews.id), latest: max(books.createdAt) })
        .from(books)
        .innerJoin(a, eq(books.authorId, a.id))
        .leftJoin(reviews, eq(reviews.bookId, books.id))
        .groupBy(a.fullName)
        .orderBy(a.fullName),
      drizzle
        .select()
        .from(books)
        .leftJoin(reviews, eq(reviews.bookId, books.id))
        .orderBy(books.id, reviews.body),
      drizzle
        .select({ id: books.id, raw: sql<string>`${books.createdAt}::date::text`, at: books.updatedAt })
        .from(books)
        .limit(2),
    ] as const
    const [all, grouped, joined, raw] = await Promise.all([
      em.select(selects[0]),
      em.select(selects[1]),
      em.select(selects[2]),
      em.select(selects[3]),
    ])
    expect(all).toEqual(await selects[0])
    expect(all).toHaveLength(2)
    expect(grouped).toEqual(await selects[1])
    expect(grouped[0]).toMatchObject({ writer: 'Ada', n: 3, latest: new Date('2024-01-03T00:00:00Z') })
    expect(joined).toEqual(await selects[2])
    expect(joined.find((r) => r.book.id === 2)?.review).toBeNull() // a left join's missing row
    expect(raw).toEqual(await selects[3])
    // Expressions named with .as(): selected by their SQL (they were selected by their alias alone, a
    // column that does not exist), an alias an orderBy names kept; two of one name, and a subquery's
    // fields, read as Drizzle reads them.
    const counted = drizzle
      .select({ authorId: books.authorId, n: count().as('n') })
      .from(books)
      .groupBy(books.authorId)
      .as('counted')
    const named = [
      drizzle
        .select({ upper: sql<string>`upper(${books.title})`.as('upper'), n: count().as('n') })
        .from(books)
        .groupBy(books.title)
        .orderBy(books.title),
      drizzle
        .select({ id: books.id, len: sql<number>`length(${books.title})`.mapWith(Number).as('len') })
        .from(books)
        .orderBy(sql`len desc`, books.id),
      drizzle
        .select({
          a: sql<string>`lower(${books.title})`.as('same'),
          b: sql<string>`upper(${books.title})`.as('same'),
          p: sql<number>`1`.mapWith(Number).as('__proto__'),
        })
        .from(books)
        .orderBy(books.id),
      drizzle
        .select({ writer: authors.fullName, n: counted.n })
        .from(counted)
        .innerJoin(authors, eq(authors.id, counted.authorId))
        .orderBy(authors.fullName),
    ] as const
    const [upper, byLength, same, sub] = await Promise.all(named.map((q) => em.select(q)))
    expect(upper).toEqual(await named[0])
    expect(upper!.length).toBeGreaterThan(0)
    expect(byLength).toEqual(await named[1])
    expect(same).toEqual(await named[2])
    expect(sub).toEqual(await named[3])
    expect(sub![0]).toMatchObject({ writer: 'Ada' })
    // A date, timestamp or interval read as text: an operator expression mapped with such a column is
    // cast whole, not its last operand (`... + interval '1 day'::text` is no timestamp).
    const arithmetic = [
      drizzle
        .select({ next: sql`${books.createdAt} + interval '1 day'`.mapWith(books.createdAt) })
        .from(books)
        .orderBy(books.id),
      drizzle
        .select({
          later: sql`${books.updatedAt} - interval '1 hour'`.mapWith(books.updatedAt).as('later'),
          day: sql`${books.createdAt}::date - 7`.mapWith(kinds.day),
          gap: sql`${books.updatedAt} - ${books.createdAt}`.mapWith(kinds.span),
        })
        .from(books)
        .orderBy(books.id),
    ] as const
    const [next, shifted] = await Promise.all([em.select(arithmetic[0]), em.select(arithmetic[1])])
    expect(next).toEqual(await arithmetic[0])
    expect(next[0]?.next).toBeInstanceOf(Date)
    expect(shifted).toEqual(await arithmetic[1])
    expect(typeof shifted[0]?.day).toBe('string')
    // A nested array given to a query is a multi-dimensional array, as Drizzle's driver sends it.
    const grid = drizzle
      .select({
        n: sql<string>`${sql.param([
          [1, null],
          [3, 4],
        ])}::int[][]::text`,
        dims: sql<number>`array_ndims(${sql.param([['a'], ['b']])}::text[][])`,
      })
      .from(books)
      .limit(1)
    expect(await em.select(grid)).toEqual([{ n: '{{1,NULL},{3,4}}', dims: 2 }])
    expect(await em.select(grid)).toEqual(await grid)
    // A union is Drizzle's to run.
    const union = drizzle
      .select({ id: books.id })
      .from(books)
      .union(drizzle.select({ id: authors.id }).from(authors))
    await expect(em.select(union)).rejects.toMatchObject({ code: 'INVALID_STATE' })
    await drizzle.delete(kinds)
  })
})
