import type { Author, Book, BookstoreEm, BookTag, Publisher, Review, Tag } from './types.ts'

/** A book to create, with its reviews and tags. */
export interface NewBook {
  readonly title: string
  readonly isbn: string
  readonly price: string | number
  readonly publishedOn?: string | null
  readonly publisher?: Publisher | null
  readonly tags: readonly Tag[]
  readonly reviews: readonly NewReview[]
}

export interface NewReview {
  readonly reviewer: string
  readonly stars: number
  readonly body?: string | null
}

/** The book aggregate: a book, its reviews and its tag links. Reads are Kysely queries. */
export class BookRepository {
  readonly #em: BookstoreEm

  constructor(em: BookstoreEm) {
    this.#em = em
  }

  /**
   * Creates a book of `author` with its tag links and reviews (inserted by the flush; the new
   * author's and book's ids are assigned then, and the references resolved).
   *
   * @example
   * books.create(author, { title: 'Dune', isbn: '978-0441013593', price: '9.99', tags, reviews: [] })
   */
  create(author: Author, input: NewBook): Book {
    const em = this.#em
    const book = em.create('book', {
      author_id: author,
      publisher_id: input.publisher ?? null,
      title: input.title,
      isbn: input.isbn,
      price: input.price,
      published_on: input.publishedOn ?? null,
    })
    for (const tag of input.tags) em.create('book_tag', { book_id: book, tag_id: tag })
    for (const r of input.reviews)
      em.create('review', { book_id: book, reviewer: r.reviewer, stars: r.stars, body: r.body ?? null })
    return book
  }

  /**
   * Makes `tags` the tags of `book`: links not wanted are deleted, missing ones created. `links` are
   * the book's current links (from `AuthorRepository.loadGraph`, which loads the book's tags too).
   * Tags are told by name: a tag got or created by this flush has no id yet.
   */
  retag(book: Book, tags: readonly Tag[], links: readonly BookTag[]): { added: number; removed: number } {
    const em = this.#em
    const nameOf = new Map(em.related(book, 'tags', 'tag').map((t) => [t.id, t.name]))
    const mine = links.filter((l) => l.book_id === book.id)
    const wanted = new Map(tags.map((t) => [t.name, t]))
    let removed = 0
    for (const link of mine) {
      if (wanted.has(nameOf.get(link.tag_id)!)) continue
      em.remove(link)
      removed++
    }
    let added = 0
    const linked = new Set(mine.map((l) => nameOf.get(l.tag_id)))
    for (const [name, tag] of wanted) {
      if (linked.has(name)) continue
      em.create('book_tag', { book_id: book, tag_id: tag })
      added++
    }
    return { added, removed }
  }

  /** Deletes `book` with its reviews and tag links (given, as loaded). */
  remove(
    book: Book,
    reviews: readonly Review[],
    links: readonly BookTag[],
  ): { reviews: number; links: number } {
    const own = {
      reviews: reviews.filter((r) => r.book_id === book.id),
      links: links.filter((l) => l.book_id === book.id),
    }
    for (const r of own.reviews) this.#em.remove(r)
    for (const l of own.links) this.#em.remove(l)
    this.#em.remove(book)
    return { reviews: own.reviews.length, links: own.links.length }
  }
}
