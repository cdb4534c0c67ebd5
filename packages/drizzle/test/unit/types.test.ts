import { count, desc, eq, sql } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { describe, expectTypeOf, test } from 'vitest'
import type {
  CreateValues,
  DrizzleEntityManager,
  Entity,
  EntityManagerFactory,
  TypedFlushHooks,
  Where,
} from '../../src/index.ts'
import { createEntityManagerFactory } from '../../src/index.ts'
import { authors, books, events, kinds, reviews, type schema, tags } from '../fixtures/schema.ts'

// Type tests: nothing here runs against a database. Each `@ts-expect-error` marks a line that must
// not compile; if it ever compiles, `npm run typecheck` fails ("unused @ts-expect-error").
type S = typeof schema
declare const em: DrizzleEntityManager<S>
declare const db: NodePgDatabase<S>
const noRun = false

describe('the factory', () => {
  test('takes its schema type from the database, or from `schema`', () => {
    if (noRun) {
      expectTypeOf(createEntityManagerFactory({ db })).resolves.toEqualTypeOf<EntityManagerFactory<S>>()
      void createEntityManagerFactory({ db, version: { books: 'version', authors: 'version' } })
      void createEntityManagerFactory({ db, version: 'version' })
      // @ts-expect-error: no such table key
      void createEntityManagerFactory({ db, version: { book: 'version' } })
      // @ts-expect-error: no such property of books
      void createEntityManagerFactory({ db, version: { books: 'revision' } })
    }
  })
})

describe('create', () => {
  test('returns a typed entity; defaulted, generated and nullable properties are optional', () => {
    if (noRun) {
      const ada = em.create(authors, { fullName: 'Ada' })
      expectTypeOf(ada).toEqualTypeOf<Entity<typeof authors>>()
      expectTypeOf(ada.id).toEqualTypeOf<number>()
      const book = em.create(books, { title: 'Notes', authorId: ada })
      expectTypeOf(book.id).toEqualTypeOf<number>()
      expectTypeOf(book.isbn).toEqualTypeOf<string | null>()
      expectTypeOf(book.createdAt).toEqualTypeOf<Date>()
      const review = em.create(reviews, { bookId: book, stars: 5 })
      // A uuid column takes an entity too (an upserted row's key is known once the flush answers).
      em.create(kinds, { id: 2, ident: review })
      // @ts-expect-error: a text column takes no entity
      em.create(reviews, { bookId: book, stars: 5, body: review })
      const row = em.create(kinds, {
        id: 1,
        int8Bigint: 5n,
        stampString: '2024-01-01 00:00:00',
        spot: [1, 2],
      })
      expectTypeOf(row.int8Bigint).toEqualTypeOf<bigint | null>()
      expectTypeOf(row.int8Number).toEqualTypeOf<number | null>()
      expectTypeOf(row.decBigint).toEqualTypeOf<bigint | null>()
      expectTypeOf(row.stamp).toEqualTypeOf<Date | null>()
      expectTypeOf(row.stampString).toEqualTypeOf<string | null>()
      expectTypeOf(row.dayDate).toEqualTypeOf<Date | null>()
      expectTypeOf(row.spotXy).toEqualTypeOf<{ x: number; y: number } | null>()
      expectTypeOf(row.feeling).toEqualTypeOf<'sad' | 'ok' | 'happy' | null>()
      expectTypeOf(row.doc).toEqualTypeOf<{ a: number[] } | null>()
      expectTypeOf(row.bytes).toEqualTypeOf<Buffer | null>()
    }
    expectTypeOf<CreateValues<typeof authors>>().toHaveProperty('fullName')
  })

  test('wrong properties and value types do not compile', () => {
    if (noRun) {
      // @ts-expect-error: a column name is not a property (author_id is authorId)
      em.create(books, { title: 'T', author_id: 1 })
      // @ts-expect-error: no such property
      em.create(authors, { fullName: 'Ada', nickname: 'A' })
      // @ts-expect-error: fullName is text, not a number
      em.create(authors, { fullName: 42 })
      // @ts-expect-error: fullName is required
      em.create(authors, {})
      // @ts-expect-error: int8Bigint is a bigint (mode bigint), not a number
      em.create(kinds, { id: 1, int8Bigint: 5 })
      // @ts-expect-error: stamp is a Date (mode date), not a string
      em.create(kinds, { id: 1, stamp: '2024-01-01' })
      // @ts-expect-error: feeling is an enum
      em.create(kinds, { id: 1, feeling: 'angry' })
      // @ts-expect-error: an entity stands for a numeric key, not for text
      em.create(books, { title: em.create(authors, { fullName: 'A' }), authorId: 1 })
      // @ts-expect-error: no key is a real: an entity stands for none
      em.create(kinds, { id: 1, float4: em.create(authors, { fullName: 'A' }) })
      // @ts-expect-error: nor a double precision
      em.create(kinds, { id: 1, float8: em.create(authors, { fullName: 'A' }) })
      // @ts-expect-error: nor on assign
      em.assign(em.create(kinds, { id: 1 }), { float8: em.create(authors, { fullName: 'A' }) })
    }
  })
})

describe('entities, assign, find', () => {
  test('properties are typed and assignable with the right types only', () => {
    if (noRun) {
      const book = em.create(books, { title: 'Notes', authorId: 1 })
      book.title = 'Final'
      book.isbn = null
      // @ts-expect-error: title is a string
      book.title = 3
      // @ts-expect-error: no such property
      book.subtitle = 'x'
      em.assign(book, { title: 'T', authorId: em.create(authors, { fullName: 'B' }) })
      // @ts-expect-error: no such property
      em.assign(book, { pages: 3 })
      const kind = em.create(kinds, { id: 1 })
      em.assign(kind, { int4: 2 })
      // @ts-expect-error: a generated column is not written (Drizzle's update refuses it too)
      em.assign(kind, { generated: 4 })
      const event = em.create(events, { what: 'x' })
      // @ts-expect-error: an identity GENERATED ALWAYS column is not written
      em.assign(event, { id: 5n })
    }
  })

  test('where is by property, with values of the property type', async () => {
    if (noRun) {
      const found = await em.find(books, { authorId: [1, 2], isbn: null })
      expectTypeOf(found).toExtend<Entity<typeof books>[]>()
      expectTypeOf<Entity<typeof books>[]>().toExtend<typeof found>()
      // @ts-expect-error: a column name is not a property
      await em.find(books, { author_id: 1 })
      // @ts-expect-error: authorId is a number
      await em.find(books, { authorId: 'one' })
      const where: Where<typeof tags> = { name: 'poetry' }
      await em.find(tags, where)
    }
  })

  test('upsert conflict lists are properties of the table', () => {
    if (noRun) {
      em.upsert(tags, { name: 'poetry' }, { conflict: ['name'], update: [] })
      // @ts-expect-error: no such property
      em.upsert(tags, { name: 'poetry' }, { conflict: ['label'] })
    }
  })
})

describe('relations and load(query)', () => {
  test('with trees name the relations relations() declares; loaded relations are typed', async () => {
    if (noRun) {
      const [ada] = await em.find(authors, {}, { with: { works: { reviews: true, writer: true } } })
      expectTypeOf(ada!.works[0]!.title).toEqualTypeOf<string>()
      expectTypeOf(ada!.works[0]!.reviews[0]!.stars).toEqualTypeOf<number>()
      expectTypeOf(ada!.works[0]!.writer.fullName).toEqualTypeOf<string>()
      // @ts-expect-error: relations not in the tree are not on the entities
      void ada!.works[0]!.events
      const book = await em.load(books, 1, { with: { writer: true } })
      expectTypeOf(book.writer.fullName).toEqualTypeOf<string>()
      // @ts-expect-error: books declares no relation "author" (it is "writer")
      await em.find(books, {}, { with: { author: true } })
      // @ts-expect-error: reviews declares no relation "stars"
      await em.find(authors, {}, { with: { works: { reviews: { stars: true } } } })
      expectTypeOf(em.related(book, 'reviews')).toExtend<Entity<typeof reviews>[]>()
      expectTypeOf(em.related(book, 'writer').fullName).toEqualTypeOf<string>()
      // @ts-expect-error: no such relation
      em.related(book, 'tags')
    }
  })

  test("load(table, key) takes a value of the key column's type, or an object of it", async () => {
    if (noRun) {
      await em.load(books, 1)
      await em.load(books, { id: 1 })
      // @ts-expect-error: books.id is an integer
      await em.load(books, '1')
      // @ts-expect-error: not the key's property
      await em.load(books, { title: 'Dune' })
    }
  })

  test('load(query) gives the entities of the table a select reads', async () => {
    if (noRun) {
      const loaded = await em.load(db.select().from(books).where(eq(books.id, 1)))
      expectTypeOf(loaded).toEqualTypeOf<Entity<typeof books>[]>()
      expectTypeOf(loaded[0]!.authorId).toEqualTypeOf<number>()
      // @ts-expect-error: a select joining tables is not rows of one table
      const joined: Entity<typeof books>[] = await em.load(
        db.select().from(books).innerJoin(authors, eq(books.authorId, authors.id)),
      )
      void joined
    }
  })
})

describe('list reads', () => {
  test("find's orderBy is by property, limit and offset are numbers", async () => {
    if (noRun) {
      await em.find(books, {}, { orderBy: { createdAt: 'desc' }, limit: 20, offset: 40 })
      await em.find(books, {}, { orderBy: [{ title: 'asc' }, { id: 'desc' }] })
      // @ts-expect-error: a column name is not a property
      await em.find(books, {}, { orderBy: { created_at: 'desc' } })
      // @ts-expect-error: a direction is asc or desc
      await em.find(books, {}, { orderBy: { title: 'up' } })
      // @ts-expect-error: limit is a number
      await em.find(books, {}, { limit: '20' })
    }
  })

  test('with trees filter, order and limit a many() by property, and count many() relations', async () => {
    if (noRun) {
      const [ada] = await em.find(
        authors,
        {},
        {
          with: {
            works: {
              $where: { title: ['Notes', 'Sketches'], isbn: null },
              $orderBy: { createdAt: 'desc' },
              $limit: 3,
              reviews: { $where: { stars: [4, 5] }, $orderBy: [{ stars: 'desc' }, { id: 'asc' }] },
              writer: { $where: { fullName: 'Ada' } },
              $count: ['reviews'],
            },
            $count: ['works'],
          },
        },
      )
      expectTypeOf(ada!.works[0]!.reviews[0]!.stars).toEqualTypeOf<number>()
      expectTypeOf(ada!.works[0]!.writer.fullName).toEqualTypeOf<string>()
      expectTypeOf(em.countOf(ada!, 'works')).toEqualTypeOf<number>()
      em.countOf(ada!.works[0]!, 'reviews')
      await em.populate(ada!.works, { reviews: { $limit: 1 }, $count: ['events'] })
    }
  })

  test('a wrong relation, property or option in a with tree does not compile', async () => {
    if (noRun) {
      // @ts-expect-error: $where is by property, not column name
      await em.find(authors, {}, { with: { works: { $where: { author_id: 1 } } } })
      // @ts-expect-error: title is a string
      await em.find(authors, {}, { with: { works: { $where: { title: 3 } } } })
      // @ts-expect-error: book has no property pages (beside one it has)
      await em.find(authors, {}, { with: { works: { $orderBy: { title: 'asc', pages: 'desc' } } } })
      // @ts-expect-error: book declares no relation nope (beside one it declares)
      await em.find(authors, {}, { with: { works: { reviews: true, nope: true } } })
      // @ts-expect-error: $limit applies to a many(): a one() is one row or none
      await em.find(books, {}, { with: { writer: { $where: { fullName: 'Ada' }, $limit: 1 } } })
      // @ts-expect-error: $count counts a many(), not a one()
      await em.find(books, {}, { with: { $count: ['writer'] } })
      // @ts-expect-error: $where applies to relations: the read chooses the roots
      await em.find(books, {}, { with: { $where: { title: 'Notes' }, writer: true } })
      // @ts-expect-error: $limit is a number
      await em.load(authors, 1, { with: { works: { $limit: 'all' } } })
      // @ts-expect-error: populate's tree too
      await em.populate([] as Entity<typeof books>[], { reviews: { $orderBy: { rating: 'desc' } } })
      const book = await em.load(books, 1)
      // @ts-expect-error: countOf a one()
      em.countOf(book, 'writer')
      // @ts-expect-error: countOf a relation the table does not declare
      em.countOf(book, 'tags')
    }
  })

  test('load(query, { with }): a select as the roots of a typed graph', async () => {
    if (noRun) {
      const page = await em.load(db.select().from(books).orderBy(desc(books.createdAt)).limit(20), {
        with: { writer: true, reviews: { $orderBy: { stars: 'desc' }, $limit: 2 }, $count: ['reviews'] },
      })
      expectTypeOf(page[0]!.writer.fullName).toEqualTypeOf<string>()
      expectTypeOf(page[0]!.reviews[0]!.stars).toEqualTypeOf<number>()
      // @ts-expect-error: books declares no relation author
      await em.load(db.select().from(books), { with: { author: true } })
    }
  })

  test('select(query) gives what Drizzle types the select to give', async () => {
    if (noRun) {
      const totals = await em.select(
        db.select({ writer: books.authorId, n: count() }).from(books).groupBy(books.authorId),
      )
      expectTypeOf(totals).toEqualTypeOf<{ writer: number; n: number }[]>()
      const joined = await em.select(
        db.select().from(books).leftJoin(authors, eq(books.authorId, authors.id)).limit(1),
      )
      expectTypeOf(joined[0]!.author).toEqualTypeOf<typeof authors.$inferSelect | null>()
      const [raw] = await em.select(db.select({ n: sql<string>`count(*)` }).from(tags))
      expectTypeOf(raw!.n).toEqualTypeOf<string>()
      // @ts-expect-error: a table is not a select
      await em.select(books)
    }
  })
})

describe('hooks', () => {
  test('table hooks are keyed by schema key and typed by the table', () => {
    const hooks: TypedFlushHooks<S> = {
      tables: {
        books: {
          beforeUpdate(book, _em, changed) {
            expectTypeOf(book.title).toEqualTypeOf<string>()
            expectTypeOf(changed).toEqualTypeOf<
              readonly ('id' | 'authorId' | 'title' | 'isbn' | 'createdAt' | 'updatedAt' | 'version')[]
            >()
          },
        },
      },
    }
    void hooks
    // @ts-expect-error: hooks are keyed by the schema's keys (books), not table names (book)
    const wrong: TypedFlushHooks<S> = { tables: { book: {} } }
    void wrong
  })
})
