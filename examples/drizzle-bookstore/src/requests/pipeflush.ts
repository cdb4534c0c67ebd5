import type { DrizzleEntityManager, Entity } from '@pipeflush/drizzle'
import { count, desc, eq, inArray, type SQL } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { authors, books, bookTags, reviews, type schema, tags } from '../schema.ts'
import {
  type AuthorView,
  BEST_REVIEWS,
  type Bookstore,
  type BookView,
  type NewAuthor,
  PAGE_SIZE,
} from './bookstore.ts'

type Em = DrizzleEntityManager<typeof schema>

/**
 * Runs one request's work on a fresh unit of work and flushes what it changed (the factory's `run`,
 * or a metered one); the work returns how to make the response once the flush has given the new
 * rows their ids.
 */
export type RunRequest = <R>(work: (em: Em) => Promise<() => R>) => Promise<R>

/** The application's Drizzle database (either driver's: only its query builder is used here). */
export type Db = Pick<NodePgDatabase<typeof schema>, 'select'>

/**
 * The bookstore on `@pipeflush/drizzle`: each request one unit of work, its reads started together
 * (one round trip), its writes one flush (one round trip). Drizzle selects choose the pages; the
 * relations, counts and totals go with them.
 */
export function pipeflushBookstore(db: Db, run: RunRequest): Bookstore {
  /** The tag named `name`, got or created by the flush (no read). */
  const tagNamed = (em: Em, made: Map<string, Entity<typeof tags>>, name: string) => {
    let tag = made.get(name)
    if (tag === undefined) {
      tag = em.upsert(tags, { name }, { conflict: ['name'], update: [] })
      made.set(name, tag)
    }
    return tag
  }

  return {
    addAuthor: (input: NewAuthor) =>
      run(async (em) => {
        const author = em.create(authors, { name: input.name })
        const made = new Map<string, Entity<typeof tags>>()
        const created = input.books.map((b) => {
          const book = em.create(books, { authorId: author, title: b.title, price: b.price })
          for (const name of b.tags) em.create(bookTags, { bookId: book, tagId: tagNamed(em, made, name) })
          return { book, tags: b.tags }
        })
        return (): AuthorView => ({
          id: author.id,
          name: author.name,
          books: created
            .map(({ book, tags }) => bookView(book, author.name, tags, 0))
            .sort((a, b) => b.id - a.id),
        })
      }),

    listBooks: ({ tag, page }) =>
      run(async (em) => {
        const where: SQL | undefined =
          tag === undefined
            ? undefined
            : inArray(
                books.id,
                db
                  .select({ id: bookTags.bookId })
                  .from(bookTags)
                  .innerJoin(tags, eq(tags.id, bookTags.tagId))
                  .where(eq(tags.name, tag)),
              )
        const [found, [counted]] = await Promise.all([
          em.load(
            db
              .select()
              .from(books)
              .where(where)
              .orderBy(desc(books.createdAt), desc(books.id))
              .limit(PAGE_SIZE)
              .offset((page - 1) * PAGE_SIZE),
            {
              with: {
                author: true,
                bookTags: { tag: true },
                reviews: { $orderBy: [{ stars: 'desc' }, { id: 'asc' }], $limit: BEST_REVIEWS },
                $count: ['reviews'],
              },
            },
          ),
          em.select(db.select({ total: count() }).from(books).where(where)),
        ])
        return () => ({
          total: counted?.total ?? 0,
          books: found.map((b) => ({
            ...bookView(b, b.author.name, tagNames(b), em.countOf(b, 'reviews')),
            best: b.reviews.map((r) => ({ stars: r.stars, body: r.body })),
          })),
        })
      }),

    getAuthor: (id) =>
      run(async (em) => {
        const author = await em.findOne(
          authors,
          { id },
          {
            with: {
              books: {
                $orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
                bookTags: { tag: true },
                $count: ['reviews'],
              },
            },
          },
        )
        return () =>
          author && {
            id: author.id,
            name: author.name,
            books: author.books.map((b) => bookView(b, author.name, tagNames(b), em.countOf(b, 'reviews'))),
          }
      }),

    reviewBook: (bookId, review) =>
      run(async (em) => {
        const book = await em.findOne(
          books,
          { id: bookId },
          { with: { author: true, bookTags: { tag: true }, reviews: true } },
        )
        if (book === undefined) return () => undefined
        const stars = [...book.reviews.map((r) => r.stars), review.stars]
        em.create(reviews, { bookId: book, stars: review.stars, body: review.body })
        book.rating = (stars.reduce((a, b) => a + b, 0) / stars.length).toFixed(2)
        return () => bookView(book, book.author.name, tagNames(book), stars.length)
      }),

    editBook: (bookId, edit) =>
      run(async (em) => {
        const book = await em.findOne(
          books,
          { id: bookId },
          { with: { author: true, bookTags: { tag: true }, $count: ['reviews'] } },
        )
        if (book === undefined) return () => undefined
        if (edit.title !== undefined) book.title = edit.title
        if (edit.price !== undefined) book.price = edit.price
        const wanted = edit.tags ?? tagNames(book)
        if (edit.tags !== undefined) {
          const have = new Set<string>()
          for (const link of book.bookTags) {
            if (wanted.includes(link.tag.name)) have.add(link.tag.name)
            else em.remove(link)
          }
          const made = new Map<string, Entity<typeof tags>>()
          for (const name of wanted)
            if (!have.has(name)) em.create(bookTags, { bookId: book, tagId: tagNamed(em, made, name) })
        }
        return () => bookView(book, book.author.name, wanted, em.countOf(book, 'reviews'))
      }),

    removeBook: (bookId) =>
      run(async (em) => {
        // Its reviews and tag links go with it (on delete cascade).
        const book = await em.findOne(books, { id: bookId })
        if (book !== undefined) em.remove(book)
        return () => book !== undefined
      }),
  }
}

/** The names of the tags a book's loaded links reach. */
function tagNames(book: { readonly bookTags: readonly { readonly tag: { readonly name: string } }[] }) {
  return book.bookTags.map((l) => l.tag.name)
}

function bookView(
  book: Entity<typeof books>,
  author: string,
  tagList: readonly string[],
  reviewCount: number,
): BookView {
  return {
    id: book.id,
    title: book.title,
    price: book.price,
    author,
    tags: [...tagList].sort(),
    rating: book.rating ?? null,
    reviews: reviewCount,
  }
}
