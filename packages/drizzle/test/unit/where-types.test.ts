import { relations } from 'drizzle-orm'
import { boolean, integer, pgEnum, pgTable, text } from 'drizzle-orm/pg-core'
import { describe, expectTypeOf, test } from 'vitest'
import type { DrizzleEntityManager, Where } from '../../src/index.ts'
import { kinds, type schema } from '../fixtures/schema.ts'

// Type tests of `find` conditions: nothing here runs against a database. Each `@ts-expect-error` marks
// a line that must not compile; if it ever compiles, `npm run typecheck` fails ("unused @ts-expect-error").
declare const em: DrizzleEntityManager<typeof schema>
const noRun = false

const status = pgEnum('order_status', ['paid', 'shipped', 'refunded'])
const customers = pgTable('customers', { id: integer('id').primaryKey() })
const orders = pgTable('orders', {
  id: integer('id').primaryKey(),
  customerId: integer('customer_id')
    .notNull()
    .references(() => customers.id),
  status: status('status').notNull(),
  channel: text('channel', { enum: ['web', 'shop'] }).notNull(),
  gift: boolean('gift').notNull(),
  labels: text('labels').array().notNull(),
})
const shop = {
  status,
  customers,
  orders,
  customersRelations: relations(customers, ({ many }) => ({ orders: many(orders) })),
  ordersRelations: relations(orders, ({ one }) => ({
    customer: one(customers, { fields: [orders.customerId], references: [customers.id] }),
  })),
}
declare const shopEm: DrizzleEntityManager<typeof shop>

describe('where', () => {
  test('an array of a union-typed column (enum, text enum, boolean) means any of its values', async () => {
    const where: Where<typeof orders> = {
      status: ['paid', 'shipped'],
      channel: ['web', 'shop'],
      gift: [true, false],
    }
    expectTypeOf(where).toExtend<Where<typeof orders>>()
    expectTypeOf<readonly ('paid' | 'shipped' | 'refunded')[]>().toExtend<Where<typeof orders>['status']>()
    if (noRun) {
      await shopEm.find(orders, { status: ['paid', 'shipped'], gift: [true, false] })
      await shopEm.find(customers, {}, { with: { orders: { $where: { status: ['paid', 'refunded'] } } } })
      // @ts-expect-error: not a label of the enum
      await shopEm.find(customers, {}, { with: { orders: { $where: { status: ['paid', 'lost'] } } } })
      await em.find(kinds, { feeling: ['sad', 'happy'], txtEnum: ['a', 'b'], flag: [true, false] })
      await em.find(kinds, { feeling: null, fit: ['S', 'L'] })
      // @ts-expect-error: not a label of the enum
      await em.find(kinds, { feeling: ['sad', 'angry'] })
      // @ts-expect-error: not a label of the text enum
      const wrong: Where<typeof orders> = { channel: ['web', 'mail'] }
      void wrong
    }
  })

  test('an array column takes an array as its value (equality), not a list of arrays', async () => {
    const where: Where<typeof orders> = { labels: ['a', 'b'] }
    expectTypeOf(where).toExtend<Where<typeof orders>>()
    expectTypeOf<Where<typeof orders>['labels']>().toEqualTypeOf<string[] | undefined>()
    expectTypeOf<Where<typeof kinds>['texts']>().toEqualTypeOf<string[] | null | undefined>()
    if (noRun) {
      await em.find(kinds, { texts: ['a', 'b'], moods: ['sad'], ints: null })
      // @ts-expect-error: a list of arrays is not a value of a text[] column
      await em.find(kinds, { texts: [['a'], ['b']] })
      // @ts-expect-error: nor is one text
      await em.find(kinds, { texts: 'a' })
    }
  })
})
