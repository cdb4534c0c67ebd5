import type { PipeflushError } from '@pipeflush/core'
import type { Kysely, SelectQueryBuilder } from 'kysely'
import { describe, expectTypeOf, test } from 'vitest'
import type {
  AnyEntity,
  CreateValues,
  TypedEntity,
  TypedEntityManager,
  TypedFlushHooks,
  Where,
} from '../../src/index.ts'
import type { DB } from '../fixtures/db.ts'
import type { ForumDB } from '../fixtures/forum-db.ts'
import type { ForumRelations } from '../fixtures/forum-relations.ts'
import type { Relations } from '../fixtures/relations.ts'

// Type tests: nothing here runs against a database. Each `@ts-expect-error` marks a line that must
// not compile; if it ever compiles, `npm run typecheck` fails ("unused @ts-expect-error").
declare const em: TypedEntityManager<DB>
declare const db: Kysely<DB>
declare const rem: TypedEntityManager<DB, Relations>
declare const fem: TypedEntityManager<ForumDB, ForumRelations>
/** Relations with a many-to-many: book's reviewers, the authors of its reviews' link rows (types only). */
type ManyToManyRelations = Relations & {
  book: { reviewers: { table: 'author'; many: true; through: 'review' } }
  review: { author: { table: 'author'; many: false } }
}
declare const mem: TypedEntityManager<DB, ManyToManyRelations>
const noRun = false

describe('create', () => {
  test('returns a typed entity; Generated and nullable columns are optional', () => {
    if (noRun) {
      const ada = em.create('author', { name: 'Ada' })
      expectTypeOf(ada).toEqualTypeOf<TypedEntity<DB, 'author'>>()
      expectTypeOf(ada.id).toEqualTypeOf<number>()
      expectTypeOf(ada.born_on).toEqualTypeOf<string | null>()
      const book = em.create('book', { title: 'Notes', author_id: ada, price: 9.5 })
      expectTypeOf(book.id).toEqualTypeOf<string>()
      expectTypeOf(book.price).toEqualTypeOf<string>()
      em.create('review', { book_id: book, stars: 5 })
      em.create('review', { book_id: 12n, stars: 5, body: null })
    }
    expectTypeOf<CreateValues<DB, 'author'>>().toHaveProperty('name')
  })

  test('wrong tables, columns and value types do not compile', () => {
    if (noRun) {
      // @ts-expect-error: no such table
      em.create('authors', { name: 'Ada' })
      // @ts-expect-error: no such column
      em.create('author', { name: 'Ada', nickname: 'A' })
      // @ts-expect-error: name is text, not a number
      em.create('author', { name: 42 })
      // @ts-expect-error: name is required
      em.create('author', {})
      // @ts-expect-error: stars is int, not a string
      em.create('review', { book_id: '1', stars: 'five' })
      // @ts-expect-error: tags is text[], not text
      em.create('book', { title: 'T', author_id: 1, price: 1, tags: 'x' })
      // @ts-expect-error: an entity stands for a numeric key, not for text
      em.create('book', { title: em.create('author', { name: 'A' }), author_id: 1, price: 1 })
      const author = em.create('author', { name: 'A' })
      // @ts-expect-error: an entity cannot stand for a timestamp
      em.create('book', { title: 'T', author_id: 1, published_at: author, price: 1 })
    }
  })
})

describe('entities and assign', () => {
  test('properties are typed and assignable with the right types only', () => {
    if (noRun) {
      const book = em.create('book', { title: 'Notes', author_id: 1, price: '9.50' })
      book.title = 'Final'
      book.published_at = new Date()
      book.tags = ['a', 'b']
      // @ts-expect-error: title is a string
      book.title = 3
      // @ts-expect-error: published_at is a Date
      book.published_at = '2024-01-01'
      // @ts-expect-error: no such column
      book.subtitle = 'x'
      em.assign(book, { title: 'T', author_id: em.create('author', { name: 'B' }) })
      // @ts-expect-error: price is numeric (string | number), not a boolean
      em.assign(book, { price: true })
      // @ts-expect-error: no such column
      em.assign(book, { pages: 3 })
    }
  })

  test('entities of different tables are not interchangeable', () => {
    expectTypeOf<TypedEntity<DB, 'book'>>().not.toEqualTypeOf<TypedEntity<DB, 'review'>>()
    if (noRun) {
      const author = em.create('author', { name: 'A' })
      const asBook: TypedEntity<DB, 'book'> = em.create('book', { title: 'T', author_id: author, price: 1 })
      // @ts-expect-error: an author is not a book
      const wrong: TypedEntity<DB, 'book'> = author
      // @ts-expect-error: a plain object is not an entity
      em.remove({ id: 1, name: 'A', born_on: null, version: 1 })
      em.remove(asBook)
      void wrong
    }
  })
})

describe('upsert', () => {
  test('values and conflict columns are typed', () => {
    if (noRun) {
      em.upsert('review', { id: 1, book_id: '1', stars: 5 }, { conflict: ['id'] })
      em.upsert('review', { id: 1, book_id: '1', stars: 5 }, { conflict: ['id'], update: ['stars'] })
      // @ts-expect-error: no such conflict column
      em.upsert('review', { id: 1, book_id: '1', stars: 5 }, { conflict: ['isbn'] })
      // @ts-expect-error: stars is a number
      em.upsert('review', { id: 1, book_id: '1', stars: '5' }, { conflict: ['id'] })
    }
  })
})

describe('find and load', () => {
  test('conditions are typed', () => {
    if (noRun) {
      void em.find('book', { author_id: [1, 2], published_at: null })
      void em.find('review', { stars: 5 })
      // @ts-expect-error: stars is a number
      void em.find('review', { stars: '5' })
      // @ts-expect-error: no such column
      void em.find('review', { rating: 5 })
      // @ts-expect-error: no such table
      void em.find('reviews', {})
    }
    // A number column takes an entity too, standing for its key (as at create).
    expectTypeOf<Where<DB, 'review'>>()
      .toHaveProperty('stars')
      .toEqualTypeOf<number | AnyEntity<DB> | readonly (number | AnyEntity<DB>)[] | undefined>()
  })

  test('load(table, key) and load(query) return typed entities', () => {
    if (noRun) {
      expectTypeOf(em.load('author', 1)).resolves.toEqualTypeOf<TypedEntity<DB, 'author'>>()
      const q = db.selectFrom('book').selectAll().where('price', '<', '10').orderBy('id')
      expectTypeOf(em.load(q)).resolves.toEqualTypeOf<TypedEntity<DB, 'book'>[]>()
      // @ts-expect-error: not every column is selected
      void em.load(db.selectFrom('book').select(['id', 'title']))
      // @ts-expect-error: a join is not one table's rows
      void em.load(db.selectFrom('book').innerJoin('author', 'author.id', 'book.author_id').selectAll())
      // @ts-expect-error: wrong column in the query itself
      void em.load(db.selectFrom('book').selectAll().where('isbn', '=', 'x'))
      // Under an alias: the aliased table's entities.
      const aliased = db.selectFrom('book as b').selectAll('b').where('b.price', '<', '10')
      expectTypeOf(em.load(aliased)).resolves.toEqualTypeOf<TypedEntity<DB, 'book'>[]>()
      expectTypeOf(em.load(db.selectFrom('author as a').selectAll())).resolves.toEqualTypeOf<
        TypedEntity<DB, 'author'>[]
      >()
      // @ts-expect-error: not every column of the aliased table is selected
      void em.load(db.selectFrom('book as b').select(['b.id', 'b.title']))
      // @ts-expect-error: an aliased join is not one table's rows either
      void em.load(db.selectFrom('book as b').innerJoin('author as a', 'a.id', 'b.author_id').selectAll())
    }
  })
})

describe('hooks', () => {
  test('hooks get typed entities and the typed entity manager; unknown tables and columns do not compile', () => {
    const hooks: TypedFlushHooks<DB> = {
      beforeFlush(em, { created, upserted, run }) {
        expectTypeOf(em).toEqualTypeOf<TypedEntityManager<DB>>()
        expectTypeOf(run).toEqualTypeOf<number>()
        for (const e of created) if (em.is(e, 'author')) expectTypeOf(e.name).toEqualTypeOf<string>()
        for (const e of upserted) if (em.is(e, 'book')) expectTypeOf(e.title).toEqualTypeOf<string>()
      },
      tables: {
        book: {
          beforeCreate(book) {
            expectTypeOf(book).toEqualTypeOf<TypedEntity<DB, 'book'>>()
          },
          beforeUpsert(book, em) {
            expectTypeOf(book).toEqualTypeOf<TypedEntity<DB, 'book'>>()
            expectTypeOf(em).toEqualTypeOf<TypedEntityManager<DB>>()
          },
          beforeUpdate(_book, _em, changed) {
            expectTypeOf(changed).toEqualTypeOf<
              readonly ('id' | 'title' | 'author_id' | 'price' | 'tags' | 'published_at' | 'meta')[]
            >()
          },
        },
        // @ts-expect-error: no such table
        books: {},
      },
      afterCommit(report) {
        expectTypeOf(report.afterCommitErrors).toEqualTypeOf<readonly PipeflushError[] | undefined>()
      },
    }
    expectTypeOf(hooks).toMatchTypeOf<TypedFlushHooks<DB>>()
  })
})

describe('relations (the R type relationsTypeSource writes)', () => {
  test('with trees are checked against R, and related() is typed by it', () => {
    if (noRun) {
      void rem.find('author', {}, { with: { books: { reviews: true } } })
      void rem.load('book', 1, { with: { author: true, reviews: { book: true } } })
      // @ts-expect-error: author has no relation novels
      void rem.find('author', {}, { with: { novels: true } })
      // @ts-expect-error: book's reviews have no relation tags
      void rem.load('book', 1, { with: { reviews: { tags: true } } })
      const ada = rem.create('author', { name: 'Ada' })
      expectTypeOf(rem.related(ada, 'books')).toEqualTypeOf<TypedEntity<DB, 'book'>[]>()
      const book = rem.create('book', { title: 'Notes', author_id: ada, price: 1 })
      expectTypeOf(rem.related(book, 'author')).toEqualTypeOf<TypedEntity<DB, 'author'> | null>()
      void rem.populate([book], { reviews: true })
      // @ts-expect-error: review is not a relation of book (reviews is)
      void rem.populate([book], { review: true })
      // @ts-expect-error: no relation of author named author
      rem.related(ada, 'author')
    }
  })

  test('with trees take $where, $orderBy and $limit on relations and $count, typed by the target table', () => {
    if (noRun) {
      void rem.find(
        'author',
        {},
        {
          orderBy: { name: 'asc' },
          limit: 10,
          offset: 20,
          with: {
            books: { $where: { price: '10' }, $orderBy: { published_at: 'desc' }, $limit: 3, reviews: true },
            $count: ['books'],
          },
        },
      )
      void rem.load(db.selectFrom('book').selectAll().orderBy('id', 'desc').limit(5), {
        with: {
          author: true,
          reviews: { $orderBy: [{ stars: 'desc' }, { id: 'asc' }] },
          $count: ['reviews'],
        },
      })
      // @ts-expect-error: the books have no column stars to filter on
      void rem.find('author', {}, { with: { books: { $where: { stars: 5 } } } })
      // @ts-expect-error: reviews are ordered by their own columns
      void rem.find('book', {}, { with: { reviews: { $orderBy: { title: 'asc' } } } })
      // @ts-expect-error: a direction is asc or desc
      void rem.find('book', {}, { with: { reviews: { $orderBy: { stars: 'up' } } } })
      // @ts-expect-error: $count names relations of the level's table
      void rem.find('book', {}, { with: { $count: ['tags'] } })
      // @ts-expect-error: $count counts relations of many rows: a book has one author (refused at run time too)
      void rem.find('book', {}, { with: { $count: ['author'] } })
      // A many-to-one reads one row: $where and $orderBy, no $limit (refused at run time too).
      void rem.find('book', {}, { with: { author: { $where: { name: 'Ada' } } } })
      // @ts-expect-error: a many-to-one takes no $limit
      void rem.find('book', {}, { with: { author: { $limit: 1 } } })
      // A many-to-many (through a link table) takes $where and $orderBy, no $limit (refused at run time too).
      void mem.find(
        'book',
        {},
        { with: { reviewers: { $where: { name: 'Ada' }, $orderBy: { name: 'asc' } } } },
      )
      // @ts-expect-error: a many-to-many takes no $limit: its link table's one-to-many does
      void mem.find('book', {}, { with: { reviewers: { $limit: 2 } } })
      void mem.find('book', {}, { with: { reviews: { $limit: 2, author: true } } })
      // @ts-expect-error: find orders its roots by their own columns
      void rem.find('book', {}, { orderBy: { stars: 'desc' } })
      const ada = rem.create('author', { name: 'Ada' })
      expectTypeOf(rem.countOf(ada, 'books')).toEqualTypeOf<number>()
      // @ts-expect-error: author has no relation reviews to count
      rem.countOf(ada, 'reviews')
      // @ts-expect-error: a book's author is one row, never counted
      rem.countOf(rem.create('book', { title: 'Notes', author_id: ada, price: 1 }), 'author')
    }
  })

  test('select(query) is typed as Kysely types the query', () => {
    if (noRun) {
      void (async () => {
        const rows = await em.select(db.selectFrom('book').select(['id', 'title']).where('author_id', '=', 1))
        expectTypeOf(rows).toEqualTypeOf<{ id: string; title: string }[]>()
        const counted = await em.select(
          db
            .with('cheap', (d) => d.selectFrom('book').select('id').where('price', '<', '10'))
            .selectFrom('cheap')
            .select((eb) => eb.fn.countAll<string>().as('n')),
        )
        expectTypeOf(counted).toEqualTypeOf<{ n: string }[]>()
      })()
    }
  })

  test('select(query) takes no query that writes', () => {
    if (noRun) {
      // A helper generic over selects compiles.
      const firstOf = <Q extends SelectQueryBuilder<DB, keyof DB, object>>(q: Q) => em.select(q.limit(1))
      void firstOf(db.selectFrom('book').selectAll())
      // @ts-expect-error: an insert
      void em.select(db.insertInto('author').values({ name: 'Ada' }).returning('id'))
      // @ts-expect-error: an update
      void em.select(db.updateTable('author').set({ name: 'Ada' }).where('id', '=', 1))
      // @ts-expect-error: a delete
      void em.select(db.deleteFrom('review').where('id', '=', 1).returningAll())
      const merge = db
        .mergeInto('author')
        .using('book', 'book.author_id', 'author.id')
        .whenMatched()
        .thenDelete()
      // @ts-expect-error: a merge
      void em.select(merge)
    }
  })

  test('without R, any tree compiles and related() needs the target table', () => {
    if (noRun) {
      void em.find('author', {}, { with: { books: { reviews: true } } })
      const ada = em.create('author', { name: 'Ada' })
      expectTypeOf(em.related(ada, 'books', 'book')).toEqualTypeOf<TypedEntity<DB, 'book'>[]>()
      // @ts-expect-error: without R the target table must be given
      em.related(ada, 'books')
    }
  })

  test('the forum: names from the columns, a one-to-one is one entity or null', () => {
    if (noRun) {
      void fem.find(
        'thread',
        {},
        {
          with: {
            thread_stat: { thread: true },
            board: { people: true, counters: true },
            posts: { reply_to: true, posts_by_reply_to: true, author: { followers: true, followees: true } },
          },
        },
      )
      // @ts-expect-error: a table keyed by its foreign key is one-to-one: thread_stat, not thread_stats
      void fem.find('thread', {}, { with: { thread_stats: true } })
      // @ts-expect-error: a plural stays as it is: people, not peoples
      void fem.find('board', {}, { with: { peoples: true } })
      // @ts-expect-error: the replies are posts_by_reply_to
      void fem.find('post', {}, { with: { posts: true } })
      const thread = fem.create('thread', { board_id: 1, title: 'Hello' })
      expectTypeOf(fem.related(thread, 'thread_stat')).toEqualTypeOf<TypedEntity<
        ForumDB,
        'thread_stat'
      > | null>()
      expectTypeOf(fem.related(thread, 'posts')).toEqualTypeOf<TypedEntity<ForumDB, 'post'>[]>()
      const post = fem.create('post', { threadId: thread, author_id: 1, body: 'first' })
      expectTypeOf(fem.related(post, 'reply_to')).toEqualTypeOf<TypedEntity<ForumDB, 'post'> | null>()
      expectTypeOf(fem.related(post, 'posts_by_reply_to')).toEqualTypeOf<TypedEntity<ForumDB, 'post'>[]>()
      const ada = fem.create('people', { name: 'Ada' })
      expectTypeOf(fem.related(ada, 'followers')).toEqualTypeOf<TypedEntity<ForumDB, 'people'>[]>()
      expectTypeOf(fem.related(ada, 'followees')).toEqualTypeOf<TypedEntity<ForumDB, 'people'>[]>()
      const counter = fem.create('forum_meta.counter', { board_id: 1, visits: 0 })
      expectTypeOf(fem.related(counter, 'board')).toEqualTypeOf<TypedEntity<ForumDB, 'board'> | null>()
    }
  })
})
