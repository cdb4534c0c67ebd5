import { jsonArrayFrom } from 'kysely/helpers/postgres'
import type { Author, Book, BookstoreEm, BookTag, Review } from './types.ts'

/** What `GET /authors/:id` shows: a read model, queried with Kysely, not tracked. */
export interface AuthorProfile {
  readonly id: number
  readonly name: string
  readonly bio: string | null
  readonly books: readonly {
    readonly isbn: string
    readonly title: string
    readonly price: string
    readonly publisher: string | null
    readonly tags: readonly string[]
    readonly reviews: number
    /** Average stars, rounded to one decimal. */
    readonly stars: number | null
  }[]
}

/** An author as a request decides from: their books, with the books' reviews and tag links. */
export interface AuthorGraph {
  readonly author: Author
  readonly books: readonly Book[]
  readonly reviews: readonly Review[]
  readonly links: readonly BookTag[]
}

/** The author aggregate. */
export class AuthorRepository {
  readonly #em: BookstoreEm

  constructor(em: BookstoreEm) {
    this.#em = em
  }

  /** A new author (inserted by the flush). */
  create(name: string, bio: string | null): Author {
    return this.#em.create('author', { name, bio })
  }

  /** The author with that id (tracked); `NOT_FOUND` if none. */
  load(id: number): Promise<Author> {
    return this.#em.load('author', id)
  }

  /**
   * The author with their books, and the books' reviews, tag links, tags and publishers, tracked: one
   * graph load, one round trip (with the other reads started in the same tick). `NOT_FOUND` if none.
   *
   * @example
   * const { author, books, reviews, links } = await authors.loadGraph(3)
   */
  async loadGraph(id: number): Promise<AuthorGraph> {
    const em = this.#em
    const author = await em.load('author', id, {
      with: { books: { reviews: true, book_tags: true, tags: true, publisher: true } },
    })
    const books = em.related(author, 'books', 'book')
    return {
      author,
      books,
      reviews: books.flatMap((b) => em.related(b, 'reviews', 'review')),
      links: books.flatMap((b) => em.related(b, 'book_tags', 'book_tag')),
    }
  }

  /** Deletes the author at the flush (remove the books first: see `BookRepository.remove`). */
  remove(author: Author): void {
    this.#em.remove(author)
  }

  /**
   * The author's profile in one Kysely query (books with publisher, tags and review stats), or
   * undefined. A plain read: nothing is tracked.
   */
  async profile(id: number): Promise<AuthorProfile | undefined> {
    const db = this.#em.db
    const row = await db
      .selectFrom('author as a')
      .select(['a.id', 'a.name', 'a.bio'])
      .select((eb) =>
        jsonArrayFrom(
          eb
            .selectFrom('book as b')
            .leftJoin('publisher as p', 'p.id', 'b.publisher_id')
            .select((eb2) => [
              'b.isbn',
              'b.title',
              eb2.cast<string>('b.price', 'text').as('price'),
              'p.name as publisher',
            ])
            .select((eb2) => [
              eb2
                .selectFrom('book_tag as bt')
                .innerJoin('tag as t', 't.id', 'bt.tag_id')
                .whereRef('bt.book_id', '=', 'b.id')
                .select((eb3) =>
                  eb3.fn
                    .coalesce(eb3.fn<string[]>('array_agg', [eb3.ref('t.name')]), eb3.val<string[]>([]))
                    .as('names'),
                )
                .as('tags'),
              eb2
                .selectFrom('review as r')
                .whereRef('r.book_id', '=', 'b.id')
                .select((eb3) => eb3.fn.countAll<number>().as('n'))
                .as('reviews'),
              eb2
                .selectFrom('review as r')
                .whereRef('r.book_id', '=', 'b.id')
                .select((eb3) => eb3.fn<number>('round', [eb3.fn.avg('r.stars'), eb3.lit(1)]).as('s'))
                .as('stars'),
            ])
            .whereRef('b.author_id', '=', 'a.id')
            .orderBy('b.id'),
        ).as('books'),
      )
      .where('a.id', '=', id)
      .executeTakeFirst()
    if (!row) return undefined
    return {
      id: row.id,
      name: row.name,
      bio: row.bio,
      // Inside json_agg, counts and averages are JSON numbers; the price was cast to text to stay exact.
      books: row.books.map((b) => ({
        ...b,
        tags: [...(b.tags ?? [])].sort(),
        reviews: b.reviews ?? 0,
        stars: b.stars ?? null,
      })),
    }
  }
}
