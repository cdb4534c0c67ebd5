import { relations } from 'drizzle-orm'
import type { NodePgDatabase } from 'drizzle-orm/node-postgres'
import { boolean, integer, pgEnum, pgTable, text } from 'drizzle-orm/pg-core'
import { describe, expectTypeOf, test } from 'vitest'
import type { DrizzleEntityManager, Entity, Where } from '../../src/index.ts'
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

  test('an entity stands for its key where a key may be, alone or in a list', async () => {
    type Customer = Entity<typeof customers>
    const customer = {} as Customer
    const where: Where<typeof orders> = { customerId: customer }
    expectTypeOf(where).toExtend<Where<typeof orders>>()
    if (noRun) {
      await shopEm.find(orders, { customerId: customer })
      await shopEm.find(orders, { customerId: [customer, 7] })
      // @ts-expect-error: a text column takes no entity
      await shopEm.find(orders, { channel: customer })
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

/** A level whose `$where` gives an enum column one label, beside other relations of that level. */
const role = pgEnum('user_role', ['admin', 'member'])
const users = pgTable('users', { id: integer('id').primaryKey(), role: role('role').notNull() })
const audits = pgTable('audits', {
  id: integer('id').primaryKey(),
  userId: integer('user_id')
    .notNull()
    .references(() => users.id),
})
const carts = pgTable('carts', {
  id: integer('id').primaryKey(),
  userId: integer('user_id')
    .notNull()
    .references(() => users.id),
  status: status('status').notNull(),
})
const lines = pgTable('lines', {
  id: integer('id').primaryKey(),
  cartId: integer('cart_id')
    .notNull()
    .references(() => carts.id),
})
const store = {
  role,
  status,
  users,
  audits,
  carts,
  lines,
  usersRelations: relations(users, ({ many }) => ({ carts: many(carts), audits: many(audits) })),
  auditsRelations: relations(audits, ({ one }) => ({
    user: one(users, { fields: [audits.userId], references: [users.id] }),
  })),
  cartsRelations: relations(carts, ({ one, many }) => ({
    user: one(users, { fields: [carts.userId], references: [users.id] }),
    lines: many(lines),
  })),
  linesRelations: relations(lines, ({ one }) => ({
    cart: one(carts, { fields: [lines.cartId], references: [carts.id] }),
  })),
}
declare const storeEm: DrizzleEntityManager<typeof store>
declare const storeDb: NodePgDatabase<typeof store>
type Line = Entity<typeof lines>
type Audit = Entity<typeof audits>

describe("with: a $where giving an enum column one label keeps the level's other relations", () => {
  test('on a many() level, in find, findOne, load(table, key) and load(query)', async () => {
    if (noRun) {
      const [u] = await storeEm.find(
        users,
        {},
        { with: { carts: { $where: { status: 'paid' }, lines: true } } },
      )
      expectTypeOf(u!.carts[0]!.lines).toEqualTypeOf<Line[]>()
      const one = await storeEm.findOne(
        users,
        {},
        { with: { carts: { $where: { status: 'paid' }, lines: true } } },
      )
      expectTypeOf(one!.carts[0]!.lines).toEqualTypeOf<Line[]>()
      const byKey = await storeEm.load(users, 1, {
        with: { carts: { $where: { status: 'paid' }, lines: true } },
      })
      expectTypeOf(byKey.carts[0]!.lines).toEqualTypeOf<Line[]>()
      const [byQuery] = await storeEm.load(storeDb.select().from(users), {
        with: { carts: { $where: { status: 'paid' }, lines: true } },
      })
      expectTypeOf(byQuery!.carts[0]!.lines).toEqualTypeOf<Line[]>()
      // as before: a list, and a label as const
      const [l] = await storeEm.find(
        users,
        {},
        { with: { carts: { $where: { status: ['paid'] }, lines: true } } },
      )
      expectTypeOf(l!.carts[0]!.lines).toEqualTypeOf<Line[]>()
      // @ts-expect-error: not a label of the enum
      await storeEm.find(users, {}, { with: { carts: { $where: { status: 'lost' }, lines: true } } })
      // @ts-expect-error: no such property of carts
      await storeEm.find(users, {}, { with: { carts: { $where: { state: 'paid' }, lines: true } } })
    }
  })

  test('on a one() level', async () => {
    if (noRun) {
      const [a] = await storeEm.find(
        audits,
        {},
        { with: { user: { $where: { role: 'admin' }, audits: true } } },
      )
      expectTypeOf(a!.user!.audits).toEqualTypeOf<Audit[]>()
      const line = await storeEm.load(lines, 1, {
        with: { cart: { $where: { status: 'shipped' }, user: { $where: { role: 'member' }, audits: true } } },
      })
      expectTypeOf(line.cart!.user!.audits).toEqualTypeOf<Audit[]>()
      // @ts-expect-error: not a label of the enum
      await storeEm.find(audits, {}, { with: { user: { $where: { role: 'root' }, audits: true } } })
    }
  })
})
