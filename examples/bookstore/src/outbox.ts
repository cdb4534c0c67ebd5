import type { TypedFlushHooks } from '@pipeflush/kysely'
import type { DB } from './schema.ts'

/**
 * The transactional outbox: every flush that creates or deletes an author, publishes a book or
 * changes a book's price also writes an `outbox` row describing it, in the same transaction (and the
 * same round trip), so a relay reading `outbox` sees an event if and only if the change committed.
 * Written through pipeflush's flush hooks: the request handlers know nothing of it.
 *
 * A new row's id is assigned by the flush, after the hooks: an event of a new author refers to it by
 * the entity (`author_id: author`, resolved when the flush assigns the id).
 *
 * @example
 * const factory = await createEntityManagerFactory<DB>({ client: pool, db, hooks: outboxHooks })
 */
export const outboxHooks: TypedFlushHooks<DB> = {
  beforeFlush(em, { created, removed }) {
    for (const entity of created) {
      if (em.is(entity, 'author')) {
        em.create('outbox', { topic: 'author.created', author_id: entity, payload: { name: entity.name } })
      } else if (em.is(entity, 'book')) {
        em.create('outbox', {
          topic: 'book.published',
          author_id: entity.author_id,
          payload: { isbn: entity.isbn, title: entity.title },
        })
      }
    }
    for (const entity of removed) {
      if (em.is(entity, 'author'))
        em.create('outbox', { topic: 'author.deleted', author_id: null, payload: { id: entity.id } })
    }
  },
  tables: {
    book: {
      beforeUpdate(book, em, changed) {
        if (changed.includes('price')) {
          em.create('outbox', {
            topic: 'book.repriced',
            author_id: book.author_id,
            payload: { isbn: book.isbn, price: book.price },
          })
        }
      },
    },
  },
}
