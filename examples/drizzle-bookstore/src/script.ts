import type { AuthorView, Bookstore } from './requests/bookstore.ts'

/** One request of the script: its name, its route, and the call (given what earlier steps answered). */
export interface Step {
  readonly name: string
  readonly route: string
  call(store: Bookstore, earlier: Earlier): Promise<unknown>
}

/** What later steps use of earlier answers: the author the script adds (their books' ids). */
export interface Earlier {
  added?: AuthorView
}

const addedBook = (earlier: Earlier, i: number): number => {
  const id = earlier.added?.books[i]?.id
  if (id === undefined) throw new Error('the script adds an author before it reviews their books')
  return id
}

/**
 * The requests a client sends, in order, from the seeded shop (see `RESET`): an author added with
 * three books (one tag new), pages of the catalogue, an author's page, reviews, edits, a removal.
 */
export const SCRIPT: readonly Step[] = [
  {
    name: 'Add an author and their books',
    route: 'POST /authors',
    call: async (store, earlier) => {
      earlier.added = await store.addAuthor({
        name: 'Ted Chiang',
        books: [
          { title: 'Stories of Your Life', price: '15.00', tags: ['sf', 'short stories'] },
          { title: 'The Lifecycle of Software Objects', price: '12.50', tags: ['sf', 'novella'] },
          { title: 'Exhalation', price: '16.00', tags: ['sf', 'short stories'] },
        ],
      })
      return earlier.added
    },
  },
  { name: 'The catalogue', route: 'GET /books', call: (store) => store.listBooks({ page: 1 }) },
  {
    name: 'The catalogue, one tag',
    route: 'GET /books?tag=classic',
    call: (store) => store.listBooks({ tag: 'classic', page: 1 }),
  },
  {
    name: 'The catalogue, page 3',
    route: 'GET /books?page=3',
    call: (store) => store.listBooks({ page: 3 }),
  },
  { name: "An author's page", route: 'GET /authors/:id', call: (store) => store.getAuthor(1) },
  { name: 'An author not found', route: 'GET /authors/:id', call: (store) => store.getAuthor(999) },
  {
    name: 'Review a new book',
    route: 'POST /books/:id/reviews',
    call: (store, earlier) => store.reviewBook(addedBook(earlier, 0), { stars: 5, body: 'Superb.' }),
  },
  {
    name: 'Review a book',
    route: 'POST /books/:id/reviews',
    call: (store) => store.reviewBook(2, { stars: 5, body: 'A classic.' }),
  },
  {
    name: 'Edit a book: title and tags',
    route: 'PATCH /books/:id',
    call: (store) =>
      store.editBook(2, { title: 'Book 2, revised', tags: ['classic', 'fantasy', 'award winner'] }),
  },
  {
    name: 'Edit a book: its price',
    route: 'PATCH /books/:id',
    call: (store) => store.editBook(3, { price: '19.90' }),
  },
  { name: 'Remove a book', route: 'DELETE /books/:id', call: (store) => store.removeBook(12) },
  { name: 'The catalogue again', route: 'GET /books', call: (store) => store.listBooks({ page: 1 }) },
]
