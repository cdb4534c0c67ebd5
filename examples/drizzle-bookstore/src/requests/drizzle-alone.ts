import { asc, count, desc, eq, inArray, type SQL, sql } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { authors, books, bookTags, reviews, type schema, tags } from '../schema.ts'
import { BEST_REVIEWS, type Bookstore, type BookView, PAGE_SIZE } from './bookstore.ts'

/** The application's Drizzle database (either driver's: the API is the same). */
export type Db = Pick<NodePgDatabase<typeof schema>, 'select' | 'query' | 'transaction' | 'delete'>

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]

/**
 * The bookstore with Drizzle alone, as its documentation writes requests: relational queries for the
 * graphs, each statement awaited, a request that writes several statements in `db.transaction`
 * (BEGIN, each statement, COMMIT: one round trip each).
 */
export function drizzleBookstore(db: Db): Bookstore {
  /** Review counts of `ids`' books, one grouped select. */
  const reviewCounts = async (q: Pick<Db, 'select'>, ids: readonly number[]) => {
    if (ids.length === 0) return new Map<number, number>()
    const rows = await q
      .select({ bookId: reviews.bookId, n: count() })
      .from(reviews)
      .where(inArray(reviews.bookId, [...ids]))
      .groupBy(reviews.bookId)
    return new Map(rows.map((r) => [r.bookId, r.n]))
  }
  /** The tags named `names`, created when new, with their ids. */
  const tagsNamed = (tx: Tx, names: readonly string[]) =>
    tx
      .insert(tags)
      .values([...new Set(names)].map((name) => ({ name })))
      .onConflictDoUpdate({ target: tags.name, set: { name: sql`excluded.name` } })
      .returning()
  const bookWith = { author: true, bookTags: { with: { tag: true } } } as const

  return {
    addAuthor: (input) =>
      db.transaction(async (tx) => {
        const [author] = await tx.insert(authors).values({ name: input.name }).returning()
        const created = await tx
          .insert(books)
          .values(input.books.map((b) => ({ authorId: author!.id, title: b.title, price: b.price })))
          .returning()
        const names = input.books.flatMap((b) => b.tags)
        if (names.length > 0) {
          const tagIds = new Map((await tagsNamed(tx, names)).map((t) => [t.name, t.id]))
          await tx
            .insert(bookTags)
            .values(
              input.books.flatMap((b, i) =>
                b.tags.map((name) => ({ bookId: created[i]!.id, tagId: tagIds.get(name)! })),
              ),
            )
        }
        return {
          id: author!.id,
          name: author!.name,
          books: created
            .map((b, i) => bookView(b, author!.name, input.books[i]!.tags, 0))
            .sort((a, b) => b.id - a.id),
        }
      }),

    listBooks: async ({ tag, page }) => {
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
        db.query.books.findMany({
          where,
          orderBy: [desc(books.createdAt), desc(books.id)],
          limit: PAGE_SIZE,
          offset: (page - 1) * PAGE_SIZE,
          with: {
            ...bookWith,
            reviews: { orderBy: [desc(reviews.stars), asc(reviews.id)], limit: BEST_REVIEWS },
          },
        }),
        db.select({ total: count() }).from(books).where(where),
      ])
      const counts = await reviewCounts(
        db,
        found.map((b) => b.id),
      )
      return {
        total: counted?.total ?? 0,
        books: found.map((b) => ({
          ...bookView(b, b.author.name, tagNames(b), counts.get(b.id) ?? 0),
          best: b.reviews.map((r) => ({ stars: r.stars, body: r.body })),
        })),
      }
    },

    getAuthor: async (id) => {
      const author = await db.query.authors.findFirst({
        where: eq(authors.id, id),
        with: {
          books: { orderBy: [desc(books.createdAt), desc(books.id)], with: { bookTags: bookWith.bookTags } },
        },
      })
      if (author === undefined) return undefined
      const counts = await reviewCounts(
        db,
        author.books.map((b) => b.id),
      )
      return {
        id: author.id,
        name: author.name,
        books: author.books.map((b) => bookView(b, author.name, tagNames(b), counts.get(b.id) ?? 0)),
      }
    },

    reviewBook: (bookId, review) =>
      db.transaction(async (tx) => {
        const book = await tx.query.books.findFirst({ where: eq(books.id, bookId), with: bookWith })
        if (book === undefined) return undefined
        await tx.insert(reviews).values({ bookId, stars: review.stars, body: review.body })
        const [rated] = await tx
          .update(books)
          .set({
            rating: sql`(select avg(${reviews.stars})::numeric(3, 2) from ${reviews} where ${reviews.bookId} = ${bookId})`,
          })
          .where(eq(books.id, bookId))
          .returning()
        const counts = await reviewCounts(tx, [bookId])
        return bookView(rated!, book.author.name, tagNames(book), counts.get(bookId) ?? 0)
      }),

    editBook: (bookId, edit) =>
      db.transaction(async (tx) => {
        const book = await tx.query.books.findFirst({ where: eq(books.id, bookId), with: bookWith })
        if (book === undefined) return undefined
        let row = book as typeof books.$inferSelect
        if (edit.title !== undefined || edit.price !== undefined) {
          const [updated] = await tx
            .update(books)
            .set({ title: edit.title, price: edit.price })
            .where(eq(books.id, bookId))
            .returning()
          row = updated!
        }
        if (edit.tags !== undefined) {
          await tx.delete(bookTags).where(eq(bookTags.bookId, bookId))
          if (edit.tags.length > 0) {
            const named = await tagsNamed(tx, edit.tags)
            await tx.insert(bookTags).values(named.map((t) => ({ bookId, tagId: t.id })))
          }
        }
        const counts = await reviewCounts(tx, [bookId])
        return bookView(row, book.author.name, edit.tags ?? tagNames(book), counts.get(bookId) ?? 0)
      }),

    removeBook: async (bookId) => {
      // Its reviews and tag links go with it (on delete cascade).
      const deleted = await db.delete(books).where(eq(books.id, bookId)).returning({ id: books.id })
      return deleted.length > 0
    },
  }
}

function tagNames(book: { readonly bookTags: readonly { readonly tag: { readonly name: string } }[] }) {
  return book.bookTags.map((l) => l.tag.name)
}

function bookView(
  book: typeof books.$inferSelect,
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
    rating: book.rating,
    reviews: reviewCount,
  }
}
