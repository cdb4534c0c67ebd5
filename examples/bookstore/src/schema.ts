import type { Generated, Int8, Numeric } from '@pipeflush/kysely'
import type { ColumnType } from 'kysely'

/** The bookstore's tables, as kysely-codegen would write them. */
export interface DB {
  publisher: { id: Generated<number>; name: string }
  author: { id: Generated<number>; name: string; bio: string | null }
  book: {
    id: Generated<Int8>
    author_id: number
    publisher_id: number | null
    title: string
    isbn: string
    price: Numeric
    published_on: string | null
  }
  tag: { id: Generated<number>; name: string }
  book_tag: { book_id: Int8; tag_id: number }
  review: { id: Generated<Int8>; book_id: Int8; reviewer: string; stars: number; body: string | null }
  /** Events written in the same flush as the changes they describe (see `outbox.ts`). */
  outbox: {
    id: Generated<Int8>
    topic: string
    author_id: number | null
    payload: ColumnType<Record<string, unknown>, Record<string, unknown>, Record<string, unknown>>
    created_at: Generated<Date>
  }
}

const DDL = `
  create table publisher (id serial primary key, name text not null unique);
  create table author (id serial primary key, name text not null, bio text);
  create table book (
    id bigserial primary key,
    author_id int not null references author,
    publisher_id int references publisher,
    title text not null,
    isbn text not null unique,
    price numeric(8, 2) not null check (price >= 0),
    published_on date
  );
  create table tag (id serial primary key, name text not null unique);
  create table book_tag (
    book_id bigint not null references book,
    tag_id int not null references tag,
    primary key (book_id, tag_id)
  );
  create table review (
    id bigserial primary key,
    book_id bigint not null references book,
    reviewer text not null,
    stars int2 not null check (stars between 1 and 5),
    body text
  );
  create table outbox (
    id bigserial primary key,
    topic text not null,
    author_id int references author on delete set null,
    payload jsonb not null,
    created_at timestamptz not null default now()
  );
`

/** Runs one SQL text (setup only): `query` of a pool from `startExampleDatabase`, or `sql.unsafe`. */
export type RunSql = (text: string) => Promise<unknown>

/**
 * Creates the bookstore's tables (in an empty database).
 *
 * @example
 * await createSchema(admin.query)
 */
export async function createSchema(run: RunSql): Promise<void> {
  await run(DDL)
}

/**
 * Empties every table, referencing rows first. The sequences go on (pipeflush keeps a pool of ids per
 * client: restarting them under a running client would hand out ids twice). `delete`, not `truncate`:
 * a truncate gives each table new storage, which makes every connection reload what it cached of
 * those tables and plan its prepared statements again on the next requests, as no request of a
 * running application meets.
 *
 * @example
 * await resetData(admin.query)
 */
export async function resetData(run: RunSql): Promise<void> {
  await run(
    'delete from outbox; delete from review; delete from book_tag; delete from tag; delete from book; delete from author; delete from publisher',
  )
}
