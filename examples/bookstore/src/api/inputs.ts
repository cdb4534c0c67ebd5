import { BadRequest, list, number, object, optional, text } from './validate.ts'

/** Body of `POST /authors`: an author with books, each with its publisher, tags and reviews. */
export interface CreateAuthorInput {
  readonly name: string
  readonly bio?: string | undefined
  readonly books: readonly {
    readonly title: string
    readonly isbn: string
    /** Decimal string, e.g. `'12.50'`. */
    readonly price: string
    readonly publishedOn?: string | undefined
    readonly publisher?: string | undefined
    readonly tags: readonly string[]
    readonly reviews: readonly {
      readonly reviewer: string
      readonly stars: number
      readonly body?: string | undefined
    }[]
  }[]
}

/** Body of `PATCH /authors/:id`: edits across the author's tables, all in one flush. */
export interface ReviseAuthorInput {
  readonly bio?: string | undefined
  /** Lowers every price of the author's books by this percentage. */
  readonly discountPercent?: number | undefined
  /** Deletes the reviews with fewer stars. */
  readonly dropReviewsBelow?: number | undefined
  /** Deletes these books (by ISBN) with their reviews and tag links. */
  readonly retire?: readonly string[] | undefined
  /** Replaces the tags of these books. */
  readonly retag?: readonly { readonly isbn: string; readonly tags: readonly string[] }[] | undefined
  /** Moves these books to another publisher (created if new). */
  readonly move?: readonly { readonly isbn: string; readonly publisher: string }[] | undefined
}

const PRICE = /^\d{1,6}(\.\d{1,2})?$/

/** Checks the body of `POST /authors`. */
export function createAuthorInput(body: unknown): CreateAuthorInput {
  const o = object(body, 'body')
  return {
    name: text(o['name'], 'name'),
    bio: optional(o['bio'], 'bio', text),
    books: list(o['books'] ?? [], 'books', (b, path) => {
      const book = object(b, path)
      const price = text(book['price'], `${path}.price`)
      if (!PRICE.test(price)) throw new BadRequest(`${path}.price must be a decimal like 12.50`)
      return {
        title: text(book['title'], `${path}.title`),
        isbn: text(book['isbn'], `${path}.isbn`),
        price,
        publishedOn: optional(book['publishedOn'], `${path}.publishedOn`, text),
        publisher: optional(book['publisher'], `${path}.publisher`, text),
        tags: list(book['tags'] ?? [], `${path}.tags`, text),
        reviews: list(book['reviews'] ?? [], `${path}.reviews`, (r, rp) => {
          const review = object(r, rp)
          return {
            reviewer: text(review['reviewer'], `${rp}.reviewer`),
            stars: number(review['stars'], `${rp}.stars`, 1, 5),
            body: optional(review['body'], `${rp}.body`, text),
          }
        }),
      }
    }),
  }
}

/** Checks the body of `PATCH /authors/:id`. */
export function reviseAuthorInput(body: unknown): ReviseAuthorInput {
  const o = object(body, 'body')
  return {
    bio: optional(o['bio'], 'bio', text),
    discountPercent: optional(o['discountPercent'], 'discountPercent', (v, p) => number(v, p, 0, 100)),
    dropReviewsBelow: optional(o['dropReviewsBelow'], 'dropReviewsBelow', (v, p) => number(v, p, 1, 6)),
    retire: optional(o['retire'], 'retire', (v, p) => list(v, p, text)),
    retag: optional(o['retag'], 'retag', (v, p) =>
      list(v, p, (r, rp) => {
        const item = object(r, rp)
        return { isbn: text(item['isbn'], `${rp}.isbn`), tags: list(item['tags'], `${rp}.tags`, text) }
      }),
    ),
    move: optional(o['move'], 'move', (v, p) =>
      list(v, p, (m, mp) => {
        const item = object(m, mp)
        return {
          isbn: text(item['isbn'], `${mp}.isbn`),
          publisher: text(item['publisher'], `${mp}.publisher`),
        }
      }),
    ),
  }
}
