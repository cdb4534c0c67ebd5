import { isPipeflushError, type PipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { asc, eq } from 'drizzle-orm'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory } from '../../src/index.ts'
import { drizzleOn, EMPTY_TABLES } from '../fixtures/databases.ts'
import { authors, books, bookTags, DDL, events, reviews, tags } from '../fixtures/schema.ts'

const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(DDL)
})

/** The error `work` rejects with. */
async function rejection(work: Promise<unknown>): Promise<PipeflushError> {
  try {
    await work
  } catch (e) {
    if (isPipeflushError(e)) return e
    throw e
  }
  throw new Error('no error')
}

describe.each(TEST_DRIVERS)('%s: flushes as a Drizzle user writes them', (driver) => {
  beforeAll(() => db.sql.unsafe(EMPTY_TABLES))

  // Bug: `prefetchIds: undefined` (an option read from configuration) replaced the factory's default
  // (true), and the first flush of each table fetched its ids in a round trip of its own.
  test.each([
    ['without prefetchIds', {}],
    ['with prefetchIds: undefined', { prefetchIds: undefined }],
  ] as const)('ids are fetched at start, %s: the first flush fetches none', async (_label, options) => {
    const { db: drizzle } = drizzleOn(db, driver, 1)
    const factory = await createEntityManagerFactory({ db: drizzle, ...options })
    const em = factory.fork()
    em.create(tags, { name: `prefetched-${driver}-${crypto.randomUUID()}` })
    const report = await em.flush()
    expect([report.idFetch, report.roundTrips]).toEqual([false, 1])
  })

  test('wasCommitted answers from the flush log, as the core entity manager does', async () => {
    await db.sql.unsafe(
      'create table if not exists pipeflush_flush_log (flush_id uuid primary key, committed boolean not null, at timestamptz not null default now())',
    )
    const { db: drizzle } = drizzleOn(db, driver, 1)
    const factory = await createEntityManagerFactory({ db: drizzle, flushLog: 'pipeflush_flush_log' })
    const em = factory.fork()
    em.create(tags, { name: `logged-${driver}` })
    const report = await em.flush()
    expect(await em.wasCommitted(report.flushId)).toBe(true)
    expect(await em.wasCommitted(crypto.randomUUID())).toBe(false)
  })

  test('new related rows, updates and deletes in one round trip, read back by Drizzle', async () => {
    const { db: drizzle, counter } = drizzleOn(db, driver, 1)
    const factory = await createEntityManagerFactory({ db: drizzle, version: { books: 'version' } })
    await factory.run((em) => void em.create(tags, { name: 'warm-up' })) // opens the connection, ids fetched
    const seeded = await factory.run((em) => {
      const ada = em.create(authors, { fullName: 'Ada' })
      const notes = em.create(books, { authorId: ada, title: 'Notes', isbn: '1' })
      const draft = em.create(books, { authorId: ada, title: 'Draft' })
      em.create(reviews, { bookId: notes, stars: 5, body: 'fine' })
      em.create(events, { bookId: draft, what: 'drafted' })
      return { ada, notes, draft }
    })
    const { notes, draft, ada } = seeded.result
    expect(notes.id).toEqual(expect.any(Number))
    expect(notes.createdAt).toBeInstanceOf(Date) // defaultNow(), read back in the flush's answer
    expect(notes.updatedAt).toEqual(new Date(0)) // $defaultFn, run at create
    counter.reset()
    const { report } = await factory.run(async (em) => {
      const [book, gone, author] = await Promise.all([
        em.load(books, notes.id),
        em.load(books, draft.id),
        em.load(authors, ada.id),
      ])
      book.title = 'Notes, 2nd edition'
      author.fullName = 'Ada Lovelace'
      em.remove(gone) // its event's book is set null by the database
      const tag = em.create(tags, { name: 'poetry' })
      em.create(bookTags, { bookId: book, tagId: tag })
      em.create(reviews, { bookId: book.id, stars: 4 })
    })
    expect(report).toMatchObject({ roundTrips: 1, inserted: 3, updated: 2, deleted: 1 })
    expect(counter.read().roundTrips).toBe(2) // the reads' round trip, then the flush's
    const stored = await drizzle.select().from(books).orderBy(asc(books.id))
    expect(stored).toHaveLength(1)
    expect(stored[0]).toMatchObject({ title: 'Notes, 2nd edition', version: 2 })
    expect(stored[0]!.updatedAt.getTime()).toBeGreaterThan(0) // $onUpdate, run before the update
    const [event] = await drizzle.select().from(events)
    expect(event).toMatchObject({ bookId: null, what: 'drafted' })
    expect(typeof event!.id).toBe('bigint') // an identity column in bigint mode
    const links = await drizzle.select().from(bookTags)
    expect(links).toEqual([{ bookId: notes.id, tagId: expect.any(Number) }])
  })

  test('upsert by a unique key: get or create without a read, referenced in the same flush', async () => {
    const { db: drizzle, counter } = drizzleOn(db, driver, 1)
    const factory = await createEntityManagerFactory({ db: drizzle })
    await factory.run((em) => void em.create(tags, { name: 'existing' }))
    const [existing] = await drizzle.select().from(tags).where(eq(tags.name, 'existing'))
    const [book] = await drizzle.select().from(books)
    counter.reset()
    const { result, report } = await factory.run((em) => {
      const found = em.upsert(tags, { name: 'existing' }, { conflict: ['name'], update: [] })
      const made = em.upsert(tags, { name: 'new-one' }, { conflict: ['name'], update: [] })
      em.create(bookTags, { bookId: book!.id, tagId: found })
      em.create(bookTags, { bookId: book!.id, tagId: made })
      return { found, made }
    })
    expect(report).toMatchObject({ roundTrips: 1, upserted: 2, inserted: 2 })
    expect(counter.read().roundTrips).toBe(1)
    expect(result.found.id).toBe(existing!.id)
    expect(result.made.id).toEqual(expect.any(Number))
    const linked = await drizzle.select().from(bookTags).where(eq(bookTags.bookId, book!.id))
    expect(linked.map((l) => l.tagId).sort()).toEqual(expect.arrayContaining([existing!.id, result.made.id]))
  })

  test('a version conflict is OPTIMISTIC_LOCK; run() retries it on a fresh unit of work', async () => {
    const { db: drizzle } = drizzleOn(db, driver, 2)
    const factory = await createEntityManagerFactory({ db: drizzle, version: 'version' })
    const [book] = await drizzle.select().from(books)
    const first = factory.fork()
    const second = factory.fork()
    const [a, b] = await Promise.all([first.load(books, book!.id), second.load(books, book!.id)])
    a.title = 'First'
    b.title = 'Second'
    await first.flush()
    const e = await rejection(second.flush())
    expect(e).toMatchObject({ code: 'OPTIMISTIC_LOCK', table: 'books' })
    expect(second.stateOf(b)).toBe('managed') // the unit of work is as it was
    let attempt = 0
    const retried = await factory.run(
      async (em) => {
        const again = await em.load(books, book!.id)
        again.title = `Third ${++attempt}`
        if (attempt === 1) await drizzle.update(books).set({ version: 99 }).where(eq(books.id, book!.id))
      },
      { retries: 1 },
    )
    expect(retried.attempts).toBe(2)
    const [stored] = await drizzle.select().from(books).where(eq(books.id, book!.id))
    expect(stored).toMatchObject({ title: 'Third 2', version: 100 })
  })

  test('hooks get the Drizzle entity manager and typed entities; $onUpdate runs before beforeUpdate', async () => {
    const { db: drizzle } = drizzleOn(db, driver, 1)
    const seen: string[] = []
    const factory = await createEntityManagerFactory({
      db: drizzle,
      hooks: {
        beforeFlush(em, { created }) {
          for (const e of created)
            if (em.is(e, books)) em.create(events, { bookId: e, what: `created ${e.title}` })
        },
        tables: {
          books: {
            beforeUpdate(book, _em, changed) {
              seen.push(`${book.title}: ${changed.join(', ')}`)
              if (book.title === 'Pinned') book.updatedAt = new Date(1000)
            },
          },
        },
        afterCommit(report, em) {
          seen.push(`committed ${report.inserted} ${typeof em.create}`)
        },
      },
    })
    const [author] = await drizzle.select().from(authors)
    const { result: book } = await factory.run((em) =>
      em.create(books, { authorId: author!.id, title: 'Hooked' }),
    )
    const [event] = await drizzle.select().from(events).where(eq(events.bookId, book.id))
    expect(event?.what).toBe('created Hooked')
    await factory.run(async (em) => {
      const again = await em.load(books, book.id)
      again.title = 'Pinned'
    })
    const [stored] = await drizzle.select().from(books).where(eq(books.id, book.id))
    expect(stored?.updatedAt).toEqual(new Date(1000)) // the application's hook wins over $onUpdate
    expect(seen).toEqual(['committed 2 function', 'Pinned: title', 'committed 0 function'])
  })

  test('errors name tables by their schema keys and columns by their properties', async () => {
    const { db: drizzle } = drizzleOn(db, driver, 1)
    const factory = await createEntityManagerFactory({ db: drizzle })
    const em = factory.fork()
    em.create(books, { authorId: 'one' as unknown as number, title: 'T' })
    const invalid = await rejection(em.flush())
    expect(invalid).toMatchObject({ code: 'INVALID_VALUE', table: 'books', column: 'authorId' })
    expect(invalid.message).toContain('books.authorId')
    await em.clear()
    em.create(reviews, { bookId: 1, stars: null as unknown as number })
    const notNull = await rejection(em.flush())
    expect(notNull).toMatchObject({ code: 'CONSTRAINT_VIOLATION', table: 'reviews', column: 'stars' })
    await em.clear()
    em.create(books, { authorId: 999_999, title: 'Orphan' })
    const fk = await rejection(em.flush())
    // The server names no column for a foreign key: the constraint's one column, by its property.
    expect(fk).toMatchObject({
      code: 'CONSTRAINT_VIOLATION',
      constraint: 'book_author_id_author_id_fk',
      column: 'authorId',
    })
    await em.clear()
    const unknown = await rejection(em.find(books, { writer: 1 } as never))
    expect(unknown).toMatchObject({ code: 'UNKNOWN_COLUMN', table: 'books' })
    expect(() => em.create({} as typeof books, { authorId: 1, title: 'x' })).toThrow(
      /not in the factory's schema/,
    )
  })

  test("a foreign key the database names otherwise than Drizzle's convention: the error still names its column", async () => {
    // A database made by hand or another migration tool: PostgreSQL's own constraint names.
    await db.sql.unsafe(
      'alter table book rename constraint book_author_id_author_id_fk to book_author_id_fkey',
    )
    try {
      const { db: drizzle } = drizzleOn(db, driver, 1)
      for (const checkDatabase of [false, true]) {
        const factory = await createEntityManagerFactory({ db: drizzle, checkDatabase })
        const em = factory.fork()
        em.create(books, { authorId: 999_999, title: 'Orphan' })
        const fk = await rejection(em.flush())
        expect(fk).toMatchObject({
          code: 'CONSTRAINT_VIOLATION',
          table: 'books',
          constraint: 'book_author_id_fkey',
          column: 'authorId',
        })
      }
    } finally {
      await db.sql.unsafe(
        'alter table book rename constraint book_author_id_fkey to book_author_id_author_id_fk',
      )
    }
  })
})
