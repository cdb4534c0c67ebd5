import { describe, expectTypeOf, test } from 'vitest'
import type { Generated, Int8, Numeric, TypedEntity, TypedEntityManager, Where } from '../../src/index.ts'

// Type tests of `find` conditions: nothing here runs against a database. Each `@ts-expect-error` marks
// a line that must not compile; if it ever compiles, `npm run typecheck` fails ("unused @ts-expect-error").

/** Columns of union types, as kysely-codegen writes an enum, a boolean and a text[]. */
interface OrderDB {
  orders: {
    id: number
    status: 'paid' | 'shipped' | 'refunded'
    coupon: 'spring' | 'autumn' | null
    gift: boolean
    labels: string[]
    notes: string[] | null
  }
}

declare const em: TypedEntityManager<OrderDB>
const noRun = false

describe('where', () => {
  test('an array of a union-typed column (enum, boolean) means any of its values', async () => {
    const where: Where<OrderDB, 'orders'> = {
      status: ['paid', 'shipped'],
      coupon: ['spring', 'autumn'],
      gift: [true, false],
    }
    expectTypeOf(where).toExtend<Where<OrderDB, 'orders'>>()
    if (noRun) {
      await em.find('orders', { status: ['paid', 'shipped'], gift: [false, true], coupon: null })
      // @ts-expect-error: not a label of the enum
      await em.find('orders', { status: ['paid', 'lost'] })
    }
  })

  test('an array column takes an array as its value (equality), not a list of arrays', async () => {
    expectTypeOf<Where<OrderDB, 'orders'>['labels']>().toEqualTypeOf<string[] | undefined>()
    expectTypeOf<Where<OrderDB, 'orders'>['notes']>().toEqualTypeOf<string[] | null | undefined>()
    if (noRun) {
      await em.find('orders', { labels: ['a', 'b'], notes: null })
      await em.find('orders', { notes: ['a'] })
      // @ts-expect-error: a list of arrays is not a value of a text[] column
      await em.find('orders', { notes: [['a'], ['b']] })
      // @ts-expect-error: nor is one text
      await em.find('orders', { labels: 'a' })
    }
  })
})

/** A foreign key, as kysely-codegen writes an int4 one. */
interface ShopDB {
  customer: { id: number; name: string }
  orders: { id: number; customer_id: number; note: string | null }
}

declare const shop: TypedEntityManager<ShopDB>

describe('where: an entity stands for its key', () => {
  test('in find, as at create', async () => {
    if (noRun) {
      const ada = shop.create('customer', { id: 1, name: 'Ada' })
      await shop.find('orders', { customer_id: ada })
      await shop.find('orders', { customer_id: [ada, 2] })
      // @ts-expect-error: a text column takes no entity
      await shop.find('orders', { note: ada })
    }
  })
})

/** int8 keys, as kysely-codegen writes bigserial and bigint columns: read as strings, written from numbers. */
interface LibraryDB {
  author: { id: Generated<Int8>; name: string }
  book: {
    id: Generated<Int8>
    author_id: Int8
    editor_id: Int8 | null
    price: Numeric
    title: string
    published_at: Date | null
  }
}

declare const lib: TypedEntityManager<LibraryDB>

describe('where: an entity stands for an int8 key (Int8), as at create', () => {
  test('an entity, a list of entities and keys, on an Int8 column', async () => {
    type Author = TypedEntity<LibraryDB, 'author'>
    expectTypeOf<Author>().toExtend<NonNullable<Where<LibraryDB, 'book'>['author_id']>>()
    expectTypeOf<Author>().toExtend<NonNullable<Where<LibraryDB, 'book'>['editor_id']>>()
    expectTypeOf<Author>().toExtend<NonNullable<Where<LibraryDB, 'book'>['id']>>()
    if (noRun) {
      const ada = lib.create('author', { name: 'Ada' })
      lib.create('book', { author_id: ada, title: 'x', price: 1 })
      await lib.find('book', { author_id: ada })
      await lib.find('book', { author_id: [ada] })
      await lib.find('book', { author_id: [ada, '2'] })
      await lib.find('book', { editor_id: ada })
      await lib.find('book', { editor_id: null })
      await lib.findOne('book', { author_id: ada })
    }
  })

  test('columns create takes no entity for still take none', async () => {
    if (noRun) {
      const ada = lib.create('author', { name: 'Ada' })
      // @ts-expect-error: a text column takes no entity
      await lib.find('book', { title: ada })
      // @ts-expect-error: nor does a timestamp
      await lib.find('book', { published_at: ada })
      // @ts-expect-error: nor in a list
      await lib.find('book', { title: [ada] })
      // @ts-expect-error: a plain object is not an entity
      await lib.find('book', { author_id: { id: '1', name: 'Ada' } })
      // @ts-expect-error: an Int8 column reads as a string: a boolean is no key
      await lib.find('book', { author_id: true })
      // @ts-expect-error: a Numeric column (written from numbers, never bigints) is no key
      await lib.find('book', { price: ada })
    }
  })
})
