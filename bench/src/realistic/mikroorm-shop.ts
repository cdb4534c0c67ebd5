import { BigIntType, EntitySchema } from '@mikro-orm/core'
import type { ShopTable } from './shop-schema.ts'

type Row = Record<string, unknown>

/** A foreign-key column of the shop and the relation MikroORM knows it by. */
export interface Relation {
  readonly property: string
  readonly target: ShopTable
}

/** Foreign-key columns per table: the unit's column name -> MikroORM's many-to-one property. */
export const RELATIONS: Readonly<Partial<Record<ShopTable, Readonly<Record<string, Relation>>>>> = {
  purchase: { customer_id: { property: 'customer', target: 'customer' } },
  purchase_line: {
    purchase_id: { property: 'purchase', target: 'purchase' },
    product_id: { property: 'product', target: 'product' },
  },
  payment: { purchase_id: { property: 'purchase', target: 'purchase' } },
  shipment: { purchase_id: { property: 'purchase', target: 'purchase' } },
  purchase_tag: {
    purchase_id: { property: 'purchase', target: 'purchase' },
    tag_id: { property: 'tag', target: 'tag' },
  },
  audit_event: { customer_id: { property: 'customer', target: 'customer' } },
}

const text = { type: 'string' } as const
const nullableText = { type: 'string', nullable: true } as const
const int = { type: 'integer' } as const
const money = { type: 'decimal', columnType: 'numeric(12,2)' } as const
const time = { type: 'datetime', columnType: 'timestamptz' } as const
const nullableTime = { ...time, nullable: true } as const

/** Scalar columns per table (the key `id` and the relations are added). */
const SCALARS: Readonly<Record<ShopTable, Readonly<Record<string, object>>>> = {
  customer: {
    name: text,
    email: text,
    tier: { ...int, default: 0 },
    marketing: { type: 'boolean', default: false },
    updated_at: nullableTime,
  },
  product: { sku: text, name: text, price: money, stock: int, updated_at: nullableTime },
  tag: { name: text },
  purchase: { status: text, total: money, note: nullableText, placed_at: time, shipped_at: nullableTime },
  purchase_line: { qty: int, price: money },
  payment: { amount: money, method: text, paid_at: time },
  shipment: { carrier: text, tracking: text, shipped_at: time },
  purchase_tag: {},
  audit_event: { action: text, detail: { type: 'json', columnType: 'jsonb' }, at: time },
}

/** One-to-many collections (inverse sides) the request scenario populates: table -> property -> (target, its many-to-one). */
export const COLLECTIONS: Readonly<
  Partial<
    Record<ShopTable, Readonly<Record<string, { readonly target: ShopTable; readonly mappedBy: string }>>>
  >
> = {
  customer: { purchases: { target: 'purchase', mappedBy: 'customer' } },
  purchase: { lines: { target: 'purchase_line', mappedBy: 'purchase' } },
}

/**
 * One `EntitySchema` per shop table (no decorators): columns keep their names, foreign keys are
 * many-to-one relations on their column (`customer_id` -> property `customer`). With `collections`,
 * also the one-to-many sides of {@link COLLECTIONS} (`customer.purchases`, `purchase.lines`).
 *
 * @example
 * const schemas = shopEntitySchemas()
 * em.create(schemas.get('purchase')!, { customer: em.getReference(schemas.get('customer')!, 1), ... })
 */
export function shopEntitySchemas(
  options: { readonly collections?: boolean } = {},
): Map<ShopTable, EntitySchema<Row>> {
  const out = new Map<ShopTable, EntitySchema<Row>>()
  for (const [table, scalars] of Object.entries(SCALARS) as [ShopTable, Record<string, object>][]) {
    const relations = Object.entries(RELATIONS[table] ?? {}).map(([column, r]) => [
      r.property,
      {
        kind: 'm:1',
        entity: () => out.get(r.target),
        joinColumn: column,
        nullable: table === 'audit_event',
      },
    ])
    const collections = Object.entries((options.collections && COLLECTIONS[table]) || {}).map(
      ([property, c]) => [property, { kind: '1:m', entity: () => out.get(c.target), mappedBy: c.mappedBy }],
    )
    out.set(
      table,
      new EntitySchema<Row>({
        name: `Shop_${table}`,
        tableName: table,
        properties: {
          id: { type: new BigIntType('number'), primary: true, autoincrement: true },
          ...scalars,
          ...Object.fromEntries(relations),
          ...Object.fromEntries(collections),
        } as never,
      }),
    )
  }
  return out
}
