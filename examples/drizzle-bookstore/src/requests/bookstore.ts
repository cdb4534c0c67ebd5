/** A book as the bookstore's responses show it. */
export interface BookView {
  readonly id: number
  readonly title: string
  readonly price: string
  readonly author: string
  /** Its tags' names, sorted. */
  readonly tags: readonly string[]
  /** The average of its reviews' stars (`'4.50'`), null before the first. */
  readonly rating: string | null
  readonly reviews: number
}

/** A page of the catalogue: newest first, optionally of one tag, with its best reviews. */
export interface BookPage {
  readonly total: number
  readonly books: readonly (BookView & { readonly best: readonly { stars: number; body: string }[] })[]
}

/** An author's page: their books, newest first. */
export interface AuthorView {
  readonly id: number
  readonly name: string
  readonly books: readonly BookView[]
}

/** What a new author brings: their books, each with its tags (created when new). */
export interface NewAuthor {
  readonly name: string
  readonly books: readonly {
    readonly title: string
    readonly price: string
    readonly tags: readonly string[]
  }[]
}

/** A change of a book: any of its title, price and tags (its tags replaced). */
export interface BookEdit {
  readonly title?: string
  readonly price?: string
  readonly tags?: readonly string[]
}

/**
 * The bookstore's requests, each a request handler's work on the database: written twice, with
 * `@pipeflush/drizzle` (`pipeflush.ts`) and with Drizzle alone (`drizzle-alone.ts`), giving the same
 * answers. A missing author or book is `undefined` (a 404).
 */
export interface Bookstore {
  /** POST /authors: an author, their books and their tags. */
  addAuthor(input: NewAuthor): Promise<AuthorView>
  /** GET /books?tag=&page=: a page of 4 books, newest first, each with its 2 best reviews, and the total. */
  listBooks(query: { readonly tag?: string; readonly page: number }): Promise<BookPage>
  /** GET /authors/:id. */
  getAuthor(id: number): Promise<AuthorView | undefined>
  /** POST /books/:id/reviews: a review; the book's rating follows. */
  reviewBook(
    bookId: number,
    review: { readonly stars: number; readonly body: string },
  ): Promise<BookView | undefined>
  /** PATCH /books/:id. */
  editBook(bookId: number, edit: BookEdit): Promise<BookView | undefined>
  /** DELETE /books/:id: the book, its reviews and tag links. Whether it existed. */
  removeBook(bookId: number): Promise<boolean>
}

/** Books per page of {@link Bookstore.listBooks}, and best reviews shown per book. */
export const PAGE_SIZE = 4
export const BEST_REVIEWS = 2
