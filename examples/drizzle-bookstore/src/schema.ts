import { relations } from 'drizzle-orm'
import { integer, numeric, pgTable, primaryKey, serial, smallint, text, timestamp } from 'drizzle-orm/pg-core'

// The bookstore's tables as a Drizzle application declares them: properties in camelCase, columns in
// snake_case, relations() for Drizzle's relational queries (and pipeflush's relation names).

export const authors = pgTable('author', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
})

export const books = pgTable('book', {
  id: serial('id').primaryKey(),
  authorId: integer('author_id')
    .notNull()
    .references(() => authors.id),
  title: text('title').notNull(),
  price: numeric('price', { precision: 8, scale: 2 }).notNull(),
  /** The average of its reviews' stars, kept by each new review; null before the first. */
  rating: numeric('rating', { precision: 3, scale: 2 }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
})

export const tags = pgTable('tag', {
  id: serial('id').primaryKey(),
  name: text('name').notNull().unique(),
})

export const bookTags = pgTable(
  'book_tag',
  {
    bookId: integer('book_id')
      .notNull()
      .references(() => books.id, { onDelete: 'cascade' }),
    tagId: integer('tag_id')
      .notNull()
      .references(() => tags.id),
  },
  (t) => [primaryKey({ columns: [t.bookId, t.tagId] })],
)

export const reviews = pgTable('review', {
  id: serial('id').primaryKey(),
  bookId: integer('book_id')
    .notNull()
    .references(() => books.id, { onDelete: 'cascade' }),
  stars: smallint('stars').notNull(),
  body: text('body').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
})

export const authorsRelations = relations(authors, ({ many }) => ({ books: many(books) }))
export const booksRelations = relations(books, ({ one, many }) => ({
  author: one(authors, { fields: [books.authorId], references: [authors.id] }),
  bookTags: many(bookTags),
  reviews: many(reviews),
}))
export const tagsRelations = relations(tags, ({ many }) => ({ bookTags: many(bookTags) }))
export const bookTagsRelations = relations(bookTags, ({ one }) => ({
  book: one(books, { fields: [bookTags.bookId], references: [books.id] }),
  tag: one(tags, { fields: [bookTags.tagId], references: [tags.id] }),
}))
export const reviewsRelations = relations(reviews, ({ one }) => ({
  book: one(books, { fields: [reviews.bookId], references: [books.id] }),
}))

/** The schema object, as `drizzle(client, { schema })` takes it. */
export const schema = {
  authors,
  books,
  tags,
  bookTags,
  reviews,
  authorsRelations,
  booksRelations,
  tagsRelations,
  bookTagsRelations,
  reviewsRelations,
}

/** The tables as SQL (what drizzle-kit would create), their sequences started past the seeded ids. */
export const DDL = `
create table author (id serial primary key, name text not null);
create table book (id serial primary key, author_id integer not null references author (id), title text not null,
  price numeric(8, 2) not null, rating numeric(3, 2), created_at timestamptz not null default now());
create table tag (id serial primary key, name text not null unique);
create table book_tag (book_id integer not null references book (id) on delete cascade,
  tag_id integer not null references tag (id), primary key (book_id, tag_id));
create table review (id serial primary key, book_id integer not null references book (id) on delete cascade,
  stars smallint not null, body text not null, created_at timestamptz not null default now());
select setval('author_id_seq', 100), setval('book_id_seq', 100), setval('tag_id_seq', 100), setval('review_id_seq', 100);
`

/**
 * The shop before the script: 3 authors, 12 books (a day apart), 4 tags, 2 reviews per book, with
 * the same ids every time. Run before each run of the script, so that every run (and every
 * implementation) starts from the same rows. The sequences are never restarted (see {@link DDL}):
 * new rows take ids above 100 that no one has taken, whoever drew them (pipeflush draws blocks of ids
 * ahead, per client).
 */
export const RESET = `
truncate review, book_tag, book, tag, author cascade;
insert into author (id, name) values (1, 'Ursula K. Le Guin'), (2, 'Octavia E. Butler'), (3, 'Stanisław Lem');
insert into tag (id, name) values (1, 'classic'), (2, 'sf'), (3, 'fantasy'), (4, 'short stories');
insert into book (id, author_id, title, price, rating, created_at)
  select g, 1 + (g - 1) % 3, 'Book ' || g, (9 + g)::numeric(8, 2), 3.50, timestamptz '2024-01-01' + g * interval '1 day'
  from generate_series(1, 12) g;
insert into book_tag select g, 1 + g % 4 from generate_series(1, 12) g;
insert into book_tag select g, 2 from generate_series(1, 12) g where g % 4 <> 1;
insert into review (id, book_id, stars, body) select 2 * g - 1 + k, g, 3 + k, 'review ' || k || ' of book ' || g
  from generate_series(1, 12) g, generate_series(0, 1) k;
`
