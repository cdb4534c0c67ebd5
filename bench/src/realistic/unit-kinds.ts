import type { ShopTable } from './shop-schema.ts'
import type { ShopState } from './shop-state.ts'
import type { Delete, NewRow, Read, Ref, Unit, Update, Value } from './unit.ts'

/** Builds one unit of work; `i` (the unit's index) makes its values differ from every earlier unit's. */
export type UnitKind = (s: ShopState, i: number) => Unit

/** Collects a unit's reads and changes; `insert` returns a reference to the new row. */
class UnitBuilder {
  readonly reads: Read[] = []
  readonly inserts: NewRow[] = []
  readonly updates: Update[] = []
  readonly deletes: Delete[] = []

  read(table: ShopTable, ids: readonly number[], column: Read['column'] = 'id'): void {
    this.reads.push({ table, column, ids })
  }
  insert(table: ShopTable, values: Record<string, Value | Ref>): Ref {
    this.inserts.push({ table, values })
    return { ref: this.inserts.length - 1 }
  }
  update(table: ShopTable, id: number, set: Record<string, Value>): void {
    this.updates.push({ table, id, set })
  }
  remove(table: ShopTable, id: number): void {
    this.deletes.push({ table, id })
  }
  build(kind: string): Unit {
    return { kind, reads: this.reads, inserts: this.inserts, updates: this.updates, deletes: this.deletes }
  }
}

const at = (i: number) => new Date(Date.UTC(2026, 5, 1) + i * 61_000)
const money = (i: number, k = 0) =>
  `${10 + ((i * 7 + k * 13) % 490)}.${String((i + k) % 100).padStart(2, '0')}`

/** A non-empty subset of `columns` (each kept with probability 1/2), with their values. */
function someOf(s: ShopState, columns: Readonly<Record<string, Value>>): Record<string, Value> {
  const names = Object.keys(columns)
  const kept = names.filter(() => s.rng.chance(0.5))
  const chosen = kept.length > 0 ? kept : [s.rng.pick(names)]
  return Object.fromEntries(chosen.map((n) => [n, columns[n] ?? null]))
}

function audit(u: UnitBuilder, i: number, action: string, customer: number | Ref | null, n: number): void {
  u.insert('audit_event', { customer_id: customer, action, detail: { action, n, unit: i }, at: at(i) })
}

/** A new customer signs up: two new rows, nothing read. */
const signup: UnitKind = (s, i) => {
  const u = new UnitBuilder()
  const c = u.insert('customer', {
    name: `customer u${i}`,
    email: `u${i}@example.com`,
    tier: s.rng.int(4),
    marketing: s.rng.chance(0.4),
    updated_at: at(i),
  })
  audit(u, i, 'signup', c, 1)
  return u.build('signup')
}

/** A purchase with 1-4 lines (and usually a payment) by a known or new customer; stock goes down. */
const checkout: UnitKind = (s, i) => {
  const u = new UnitBuilder()
  let customer: number | Ref
  if (s.rng.chance(0.8)) {
    customer = s.customer()
    u.read('customer', [customer])
    if (s.rng.chance(0.3)) u.update('customer', customer, { updated_at: at(i), tier: 100 + (i % 50) })
  } else {
    customer = u.insert('customer', { name: `customer u${i}`, email: `u${i}@example.com`, updated_at: at(i) })
  }
  const products = Array.from({ length: 1 + s.rng.int(4) }, () => s.product())
  u.read('product', products)
  const purchase = u.insert('purchase', {
    customer_id: customer,
    status: s.rng.pick(['pending', 'paid']),
    total: money(i),
    note: s.rng.chance(0.3) ? `gift wrap u${i}` : null,
    placed_at: at(i),
  })
  products.forEach((product, k) => {
    u.insert('purchase_line', {
      purchase_id: purchase,
      product_id: product,
      qty: 1 + s.rng.int(3),
      price: money(i, k),
    })
    u.update(
      'product',
      product,
      s.rng.chance(0.3) ? { stock: 5000 + i, updated_at: at(i) } : { stock: 5000 + i },
    )
  })
  if (s.rng.chance(0.7))
    u.insert('payment', {
      purchase_id: purchase,
      amount: money(i),
      method: s.rng.pick(['card', 'paypal', 'transfer']),
      paid_at: at(i),
    })
  audit(u, i, 'checkout', customer, products.length)
  return u.build('checkout')
}

/** A purchase and its lines are loaded and edited: some columns of each, a line removed or added, tags. */
const amend: UnitKind = (s, i) => {
  const u = new UnitBuilder()
  const p = s.purchase()
  u.read('purchase', [p])
  u.read('purchase_line', [p], 'purchase_id')
  u.update(
    'purchase',
    p,
    someOf(s, {
      status: s.rng.pick(['pending', 'packed', 'returned']),
      note: `changed u${i}`,
      total: money(i),
    }),
  )
  const lines = s.lines(p)
  const removed = lines.length > 1 && s.rng.chance(0.4) ? s.rng.pick(lines) : undefined
  for (const [k, line] of lines.entries()) {
    if (line === removed || !s.rng.chance(0.5)) continue
    u.update('purchase_line', line, someOf(s, { qty: 10 + (i % 40), price: money(i, k) }))
  }
  if (removed !== undefined) {
    u.remove('purchase_line', removed)
    s.deleteLine(p, removed)
  }
  if (s.rng.chance(0.3))
    u.insert('purchase_line', { purchase_id: p, product_id: s.product(), qty: 1, price: money(i, 9) })
  if (s.rng.chance(0.4))
    for (let k = 0; k <= s.rng.int(2); k++)
      u.insert('purchase_tag', { purchase_id: p, tag_id: 1 + ((i + k * 7) % 20) })
  audit(u, i, 'amend', null, lines.length)
  return u.build('amend')
}

/** A customer edits some of their profile's columns. */
const profile: UnitKind = (s, i) => {
  const u = new UnitBuilder()
  const c = s.customer()
  u.read('customer', [c])
  u.update(
    'customer',
    c,
    someOf(s, {
      name: `renamed u${i}`,
      email: `moved-u${i}@example.com`,
      tier: 100 + (i % 50),
      updated_at: at(i),
    }),
  )
  if (s.rng.chance(0.5)) audit(u, i, 'profile', c, 1)
  return u.build('profile')
}

/** A purchase is cancelled: deleted, with its lines, payment, shipment and tags (on delete cascade). */
const cancel: UnitKind = (s, i) => {
  const u = new UnitBuilder()
  const p = s.purchase()
  u.read('purchase', [p])
  u.remove('purchase', p)
  s.deletePurchase(p)
  audit(u, i, 'cancel', null, p)
  return u.build('cancel')
}

/** 2-6 products get new stock and/or prices. */
const restock: UnitKind = (s, i) => {
  const u = new UnitBuilder()
  const products = Array.from({ length: 2 + s.rng.int(5) }, () => s.product())
  u.read('product', products)
  products.forEach((product, k) => {
    u.update('product', product, someOf(s, { stock: 9000 + i + k, price: money(i, k), updated_at: at(i) }))
  })
  if (s.rng.chance(0.3)) audit(u, i, 'restock', null, products.length)
  return u.build('restock')
}

/** A purchase ships: a shipment row, the purchase's status and date. */
const ship: UnitKind = (s, i) => {
  const u = new UnitBuilder()
  const p = s.purchase()
  u.read('purchase', [p])
  u.insert('shipment', {
    purchase_id: p,
    carrier: s.rng.pick(['dhl', 'ups', 'post']),
    tracking: `TRK-${i}`,
    shipped_at: at(i),
  })
  u.update('purchase', p, { status: 'shipped', shipped_at: at(i) })
  audit(u, i, 'ship', null, p)
  return u.build('ship')
}

/** Every kind of unit with its weight in the mix. */
export const UNIT_KINDS: readonly (readonly [UnitKind, number])[] = [
  [signup, 10],
  [checkout, 30],
  [amend, 20],
  [profile, 15],
  [cancel, 8],
  [restock, 10],
  [ship, 7],
]
