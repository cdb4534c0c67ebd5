import { getTableColumns } from 'drizzle-orm'
import {
  bigint,
  boolean,
  integer,
  jsonb,
  numeric,
  type PgColumn,
  type PgTable,
  pgTable,
  text,
  timestamp,
} from 'drizzle-orm/pg-core'
import type { ShopTable } from './shop-schema.ts'

// The shop (see shop-schema.ts) as a Drizzle application declares it: camelCase properties over the
// snake_case columns, bigint identity keys held as numbers, numerics as strings, timestamps as Dates.

const id = () => bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity()
const ref = (name: string) => bigint(name, { mode: 'number' })
const money = (name: string) => numeric(name, { precision: 12, scale: 2 })
const time = (name: string) => timestamp(name, { withTimezone: true })

export const customer = pgTable('customer', {
  id: id(),
  name: text('name').notNull(),
  email: text('email').notNull(),
  tier: integer('tier').notNull().default(0),
  marketing: boolean('marketing').notNull().default(false),
  updatedAt: time('updated_at'),
})
export const product = pgTable('product', {
  id: id(),
  sku: text('sku').notNull(),
  name: text('name').notNull(),
  price: money('price').notNull(),
  stock: integer('stock').notNull(),
  updatedAt: time('updated_at'),
  version: integer('version').notNull().default(1),
})
export const tag = pgTable('tag', { id: id(), name: text('name').notNull() })
export const purchase = pgTable('purchase', {
  id: id(),
  customerId: ref('customer_id')
    .notNull()
    .references(() => customer.id),
  status: text('status').notNull(),
  total: money('total').notNull(),
  note: text('note'),
  placedAt: time('placed_at').notNull(),
  shippedAt: time('shipped_at'),
})
export const purchaseLine = pgTable('purchase_line', {
  id: id(),
  purchaseId: ref('purchase_id')
    .notNull()
    .references(() => purchase.id, { onDelete: 'cascade' }),
  productId: ref('product_id')
    .notNull()
    .references(() => product.id),
  qty: integer('qty').notNull(),
  price: money('price').notNull(),
})
export const payment = pgTable('payment', {
  id: id(),
  purchaseId: ref('purchase_id')
    .notNull()
    .references(() => purchase.id, { onDelete: 'cascade' }),
  amount: money('amount').notNull(),
  method: text('method').notNull(),
  paidAt: time('paid_at').notNull(),
})
export const shipment = pgTable('shipment', {
  id: id(),
  purchaseId: ref('purchase_id')
    .notNull()
    .references(() => purchase.id, { onDelete: 'cascade' }),
  carrier: text('carrier').notNull(),
  tracking: text('tracking').notNull(),
  shippedAt: time('shipped_at').notNull(),
})
export const purchaseTag = pgTable('purchase_tag', {
  id: id(),
  purchaseId: ref('purchase_id')
    .notNull()
    .references(() => purchase.id, { onDelete: 'cascade' }),
  tagId: ref('tag_id')
    .notNull()
    .references(() => tag.id),
})
export const auditEvent = pgTable('audit_event', {
  id: id(),
  customerId: ref('customer_id').references(() => customer.id),
  action: text('action').notNull(),
  detail: jsonb('detail').notNull(),
  at: time('at').notNull(),
})

/** The schema object, as `drizzle(client, { schema })` takes it. */
export const drizzleShop = {
  customer,
  product,
  tag,
  purchase,
  purchaseLine,
  payment,
  shipment,
  purchaseTag,
  auditEvent,
}

/** Each shop table's Drizzle table, by its name in the database. */
export const DRIZZLE_TABLES: Readonly<Record<ShopTable, PgTable>> = {
  customer,
  product,
  tag,
  purchase,
  purchase_line: purchaseLine,
  payment,
  shipment,
  purchase_tag: purchaseTag,
  audit_event: auditEvent,
}

/** Per shop table, each column's property (`customer_id` -> `customerId`). */
const PROPERTIES = new Map(
  Object.entries(DRIZZLE_TABLES).map(([name, table]) => [
    name,
    new Map(Object.entries(getTableColumns(table)).map(([property, c]) => [(c as PgColumn).name, property])),
  ]),
)

/**
 * `values` of `table` (by column, as a unit of work holds them) by property, as Drizzle takes them.
 *
 * @example
 * byProperty('purchase', { customer_id: 3, placed_at: at }) // { customerId: 3, placedAt: at }
 */
export function byProperty<V>(table: ShopTable, values: Readonly<Record<string, V>>): Record<string, V> {
  const properties = PROPERTIES.get(table)!
  return Object.fromEntries(
    Object.entries(values).map(([column, v]) => {
      const property = properties.get(column)
      if (property === undefined) throw new Error(`drizzle: ${table} has no column ${column}`)
      return [property, v]
    }),
  )
}

/** The Drizzle column of `table`'s column `name` (`purchase_id` -> `purchaseLine.purchaseId`). */
export function columnOf(table: ShopTable, name: string): PgColumn {
  const property = PROPERTIES.get(table)!.get(name)
  if (property === undefined) throw new Error(`drizzle: ${table} has no column ${name}`)
  return getTableColumns(DRIZZLE_TABLES[table])[property] as PgColumn
}
