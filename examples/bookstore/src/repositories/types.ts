import type { TypedEntity, TypedEntityManager } from '@pipeflush/kysely'
import type { DB } from '../schema.ts'

/** The unit of work of one request. */
export type BookstoreEm = TypedEntityManager<DB>
export type Author = TypedEntity<DB, 'author'>
export type Book = TypedEntity<DB, 'book'>
export type Publisher = TypedEntity<DB, 'publisher'>
export type Tag = TypedEntity<DB, 'tag'>
export type Review = TypedEntity<DB, 'review'>
export type BookTag = TypedEntity<DB, 'book_tag'>
