import { isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { asc, desc, eq, gt } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'
import { drizzleOn, EMPTY_TABLES } from '../fixtures/databases.ts'
import { authors, books, bookTags, DDL, events, reviews, tags } from '../fixtures/schema.ts'

const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(DDL)
})

describe.each(TEST_DRIVERS)('%s: reads', (driver) => {
  beforeAll(async () => {
    await db.sql.unsafe(EMPTY_TABLES)
    await db.sql.unsafe(`
      insert into author (full_name) values ('Ada'), ('Grace');
      insert into book (author_id, title, isbn, updated_at) values
        (1, 'Notes', '1', now()), (1, 'Sketches', '2', now()), (2, 'Compilers', '3', now());
      insert into review (book_id, stars) values (1, 5), (1, 3), (3, 4);
      insert into tag (name) values ('poetry'), ('math');
      insert into book_tag values (1, 1), (1, 2), (3, 2);
      insert into audit.event (book_id, what) values (1, 'written');
    `)
  })

  test('find, findOne and load by property names; relations by the names relations() declares', async () => {
    const { db: drizzle, counter } = drizzleOn(db, driver, 1)
    const factory = await createEntityManagerFactory({ db: drizzle })
    const em = factory.fork()
    await em.find(tags) // opens the connection
    counter.reset()
    const [ada, notes, none] = await Promise.all([
      em.findOne(authors, { fullName: 'Ada' }, { with: { works: { reviews: true, events: true } } }),
      em.load(books, 1, { with: { writer: true } }),
      em.findOne(books, { authorId: 2, isbn: ['7', '8'] }),
    ])
    expect(counter.read().roundTrips).toBe(1)
    expect(none).toBeUndefined()
    expect(ada?.works.map((b) => b.title).sort()).toEqual(['Notes', 'Sketches'])
    expect(notes.writer).toBe(ada) // one object per row
    const first = ada!.works.find((b) => b.id === 1)!
    expect(first).toBe(notes)
    expect(first.reviews.map((r) => r.stars).sort()).toEqual([3, 5]) // declared without a foreign key
    expect(first.events.map((e) => e.what)).toEqual(['written'])
    expect(em.related(notes, 'writer')).toBe(ada)
    // A table that declares no relations reads those its foreign keys give, by their derived names.
    const [poetry] = await em.find(tags, { name: 'poetry' }, { with: { books: true } })
    expect((poetry as unknown as { books: unknown[] }).books).toEqual([notes])
    // Relations derived from foreign keys that relations() does not declare are there at run time
    // (their types list only the declared ones): the many-to-many through book_tag.
    const [tagged] = await em.find(books, { id: 3 }, { with: { tags: true } as never })
    expect((tagged as unknown as { tags: unknown[] }).tags.map((t) => (t as { name: string }).name)).toEqual([
      'math',
    ])
    const unknown = await em.find(books, {}, { with: { nope: true } as never }).catch((e: unknown) => e)
    expect(isPipeflushError(unknown, 'UNKNOWN_RELATION')).toBe(true)
  })

  // Navigation is core's: a one() loaded with a $where its row fails is null, one not loaded
  // NOT_LOADED; a link table's relation keeps its $orderBy beside the many-to-many through it.
  test('a one() loaded with a $where its row fails is null; a link relation ordered beside its many-to-many keeps its order', async () => {
    const { db: drizzle, counter } = drizzleOn(db, driver, 1)
    const factory = await createEntityManagerFactory({ db: drizzle })
    const em = factory.fork()
    await em.find(tags)
    counter.reset()
    const [compilers, notes] = await Promise.all([
      em.load(books, 3, { with: { writer: { $where: { fullName: 'Ada' } } } }),
      em.load(books, 1, {
        with: { tags: true, book_tags: { $orderBy: { tagId: 'desc' } } } as never,
      }),
    ])
    expect(counter.read().roundTrips).toBe(1)
    expect(em.related(compilers, 'writer')).toBeNull()
    expect(compilers.writer).toBeNull()
    expect(() => em.related(notes, 'writer')).toThrow(expect.objectContaining({ code: 'NOT_LOADED' }))
    const links = (notes as unknown as { book_tags: { tagId: number }[] }).book_tags
    expect(links.map((l) => l.tagId)).toEqual([2, 1])
  })

  test('a Drizzle select loaded with the tick other reads, in one round trip; tracked rows kept', async () => {
    const { db: drizzle, counter } = drizzleOn(db, driver, 1)
    const factory = await createEntityManagerFactory({ db: drizzle })
    const em = factory.fork()
    await em.find(tags)
    const notes = await em.load(books, 1)
    notes.title = 'Changed, not flushed'
    counter.reset()
    const b = alias(books, 'b')
    const [selected, aliased, reviewed] = await Promise.all([
      em.load(drizzle.select().from(books).where(eq(books.authorId, 1)).orderBy(desc(books.id))),
      em.load(drizzle.select().from(b).where(gt(b.id, 2)).limit(1)),
      em.find(reviews, { bookId: 3 }),
      em.load(authors, 2),
    ])
    expect(counter.read().roundTrips).toBe(1)
    expect(selected.map((x) => x.title)).toEqual(['Sketches', 'Changed, not flushed'])
    expect(selected[1]).toBe(notes)
    // An alias names no table of the schema in its type: narrow its rows.
    expect(aliased.filter((x) => em.is(x, books)).map((x) => x.title)).toEqual(['Compilers'])
    expect(reviewed).toHaveLength(1)
    // Values as Drizzle's own select gives them.
    const [row] = await drizzle.select().from(books).where(eq(books.id, 2))
    expect({ ...selected[0] }).toEqual(row)
    selected[0]!.title = 'Sketched'
    const report = await em.flush()
    expect(report.updated).toBe(2)
    expect((await drizzle.select().from(books).orderBy(asc(books.id))).map((x) => x.title)).toEqual([
      'Changed, not flushed',
      'Sketched',
      'Compilers',
    ])
  })

  // Its select list is every column as text, which holds none of the columns an ORDER BY names.
  test('a DISTINCT select ordered by its columns, and a DISTINCT ON', async () => {
    const { db: drizzle } = drizzleOn(db, driver, 1)
    const factory = await createEntityManagerFactory({ db: drizzle })
    const em = factory.fork()
    const distinct = await em.load(
      drizzle.selectDistinct().from(books).orderBy(asc(books.authorId), desc(books.id)),
    )
    expect(distinct.map((x) => x.id)).toEqual([2, 1, 3])
    const first = await em.load(
      drizzle.selectDistinctOn([books.authorId]).from(books).orderBy(asc(books.authorId), asc(books.id)),
    )
    expect(first.map((x) => x.id)).toEqual([1, 3])
  })

  test('a select joining tables, or from a table outside the schema, is refused before sending', async () => {
    const { db: drizzle } = drizzleOn(db, driver, 1)
    const factory = await createEntityManagerFactory({ db: drizzle })
    const em = factory.fork()
    const joined = drizzle.select().from(books).innerJoin(authors, eq(books.authorId, authors.id))
    await expect(em.load(joined as never)).rejects.toMatchObject({ code: 'INVALID_STATE' })
    const grouped = drizzle.select({ n: books.authorId }).from(books).groupBy(books.authorId)
    await expect(em.load(grouped as never)).rejects.toMatchObject({ code: 'INVALID_STATE' })
    expect(drizzle.select().from(bookTags).where(eq(bookTags.tagId, 1))).toBeDefined()
    const linked = await em.load(drizzle.select().from(bookTags).where(eq(bookTags.tagId, 2)))
    expect(linked.map((l) => l.bookId).sort()).toEqual([1, 3])
    expect(await em.load(drizzle.select().from(events))).toHaveLength(1)
  })
})
