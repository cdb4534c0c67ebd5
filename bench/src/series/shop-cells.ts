// The CPU scenario's shop cells: units of work on the realistic workload's shop (see
// `realistic/shop-schema.ts`) that go through what the plain-insert cells do not: a graph of related
// new rows (foreign keys resolved by the library, ids from sequences), updates of varying columns of
// loaded rows (versioned on `product`, the shop's table with a `version` column), deletes, and a mix
// of the three. Each client writes rows of its own (its fixtures, seeded once, and rows a unit creates
// for itself to delete), so series measured side by side never touch each other's rows, and unit `i`
// of a cell is the same on every client but for those rows' ids.
import { seededPrng } from '../realistic/prng.ts'
import type { ShopTable } from '../realistic/shop-schema.ts'
import type { NewRow, Read, Ref, Unit, Update, Value } from '../realistic/unit.ts'
import type { Work } from '../workload.ts'

/**
 * The shop cells of the CPU scenario, in the order they are run and shown: four flushes, then `load`,
 * a read batch (a graph load: see {@link LOAD_WITH}).
 */
export const SHOP_CELLS = ['graph', 'update', 'delete', 'mix', 'load'] as const

export type ShopCell = (typeof SHOP_CELLS)[number]

/** What one flush of each cell writes, for titles. */
export const SHOP_CELL_LABELS: Readonly<Record<ShopCell, string>> = {
  graph:
    'shop graph: a new customer, 2 purchases of it, 3 lines + 1 payment each, 1 audit event (12 new rows, FKs to new rows, ids from sequences)',
  update:
    'shop update: a loaded customer, purchase, its 3 lines and 4 products, varying columns of each (lines half the time; products versioned)',
  delete:
    'shop delete: 2 purchases (their lines and payments by cascade), 2 lines, 2 audit events, 1 product (versioned), all loaded',
  mix: 'shop mix: a new purchase of a loaded customer with 2 lines, a payment, an audit event; the customer, 2 products (versioned) and a purchase updated; a purchase and a line deleted',
  load: "shop load: a read batch, no write: a customer with its 5 purchases, their 15 lines and the lines' 15 products, a graph load on a fresh fork (4 selects in one round trip, 36 rows)",
}

/**
 * What the `load` cell reads: `em.load('customer', id, { with: LOAD_WITH })`, the customer of the
 * client's first fixture unit (the same each time, on a fresh fork).
 */
export const LOAD_WITH = { purchases: { purchase_lines: { product: true } } } as const

/** Whether `cell` is a read batch (nothing written), not a flush. */
export function readsOnly(cell: ShopCell): boolean {
  return cell === 'load'
}

/** The tables each cell writes. */
const CELL_TABLES: Readonly<Record<ShopCell, readonly ShopTable[]>> = {
  graph: ['customer', 'purchase', 'purchase_line', 'payment', 'audit_event'],
  update: ['customer', 'purchase', 'purchase_line', 'product'],
  delete: ['purchase', 'purchase_line', 'audit_event', 'product'],
  mix: ['customer', 'product', 'purchase', 'purchase_line', 'payment', 'audit_event'],
  load: ['customer', 'purchase', 'purchase_line', 'product'],
}

/**
 * The work of a shop cell (`tables`: the tables it writes; `rowsPerTable` 0: it varies).
 *
 * @example
 * shopWork('graph') // { tables: ['customer', ...], rowsPerTable: 0, shop: 'graph' }
 */
export function shopWork(cell: ShopCell): Work {
  return { tables: CELL_TABLES[cell], rowsPerTable: 0, shop: cell }
}

/** A unit of work of a cell, with the rows it needs created first (SQL, run untimed before its reads). */
export interface CellUnit extends Unit {
  /** Inserts of the rows the unit deletes (or changes) that are not fixtures; '' for none. */
  readonly setup: string
}

/** Units' worth of fixture rows per client: units `i` and `i + FIXTURE_UNITS` use the same rows. */
export const FIXTURE_UNITS = 1000
const PRODUCTS_PER_UNIT = 4
const LINES_PER_PURCHASE = 3
/** Ids of the rows units create for themselves start this far above a client's base. */
const SETUP_OFFSET = 50_000_000
/** Clients' id ranges: far above the shop's sequences, one range per client. */
const FIRST_BASE = 5_000_000_000_000
const RANGE = 100_000_000

let clients = 0

/**
 * The rows of one client: fixtures (customers, products, purchases with 3 lines each) in an id range of
 * its own, and a counter for the rows its units create for themselves.
 */
export class ShopFixtures {
  readonly base = FIRST_BASE + clients++ * RANGE
  #next = 0

  /** The SQL that inserts the fixtures (run once, before the client's first unit). */
  sql(): string {
    const b = this.base
    const f = FIXTURE_UNITS
    return `
insert into customer (id, name, email, tier, marketing)
  select ${b} + g, 'fixture customer ' || g, 'f' || g || '@example.com', g % 4, g % 3 = 0 from generate_series(1, ${f}) g;
insert into product (id, sku, name, price, stock)
  select ${b} + g, 'SKU-F' || g, 'fixture product ' || g, (g % 90 + 9.99)::numeric(12,2), 1000 from generate_series(1, ${f * PRODUCTS_PER_UNIT}) g;
insert into purchase (id, customer_id, status, total, placed_at)
  select ${b} + g, ${b} + g, 'paid', (g % 200 + 20)::numeric(12,2), timestamptz '2026-01-01' + g * interval '1 hour' from generate_series(1, ${f}) g;
insert into purchase_line (id, purchase_id, product_id, qty, price)
  select ${b} + (g - 1) * ${LINES_PER_PURCHASE} + k, ${b} + g, ${b} + (g - 1) * ${PRODUCTS_PER_UNIT} + k, k, 10.00
  from generate_series(1, ${f}) g, generate_series(1, ${LINES_PER_PURCHASE}) k;`
  }

  /** The fixture slot (1..FIXTURE_UNITS) of unit `i`. */
  slot(i: number): number {
    return 1 + (i % FIXTURE_UNITS)
  }
  customer(i: number): number {
    return this.base + this.slot(i)
  }
  purchase(i: number): number {
    return this.base + this.slot(i)
  }
  /** Product `k` (0..3) of unit `i`. */
  product(i: number, k: number): number {
    return this.base + (this.slot(i) - 1) * PRODUCTS_PER_UNIT + 1 + k
  }
  /** A fresh id for a row a unit creates for itself. */
  setupId(): number {
    return this.base + SETUP_OFFSET + ++this.#next
  }
}

const at = (i: number) => new Date(Date.UTC(2026, 5, 1) + i * 61_000)
const money = (i: number, k = 0) =>
  `${10 + ((i * 7 + k * 13) % 490)}.${String((i + k) % 100).padStart(2, '0')}`

/** Collects a unit's reads and changes (as the realistic generator does), with its setup SQL. */
class Builder {
  readonly reads: Read[] = []
  readonly inserts: NewRow[] = []
  readonly updates: Update[] = []
  readonly deletes: { table: ShopTable; id: number }[] = []
  readonly setup: string[] = []

  read(table: ShopTable, ids: readonly number[], column: Read['column'] = 'id'): void {
    this.reads.push({ table, column, ids })
  }
  insert(table: ShopTable, values: Record<string, Value | Ref>): Ref {
    this.inserts.push({ table, values })
    return { ref: this.inserts.length - 1 }
  }
  build(kind: string): CellUnit {
    return { kind, ...this, setup: this.setup.join('\n') }
  }
}

/** A non-empty subset of `columns`, each kept with probability 1/2. */
function someOf(
  rng: ReturnType<typeof seededPrng>,
  columns: Readonly<Record<string, Value>>,
): Record<string, Value> {
  const names = Object.keys(columns)
  const kept = names.filter(() => rng.chance(0.5))
  const chosen = kept.length > 0 ? kept : [rng.pick(names)]
  return Object.fromEntries(chosen.map((n) => [n, columns[n] ?? null]))
}

/** A purchase with `lines` lines (ids `setupId`), inserted by the unit's setup; returns its id and its lines' ids. */
function setupPurchase(u: Builder, f: ShopFixtures, i: number, lines: number): [number, number[]] {
  const p = f.setupId()
  const ls = Array.from({ length: lines }, () => f.setupId())
  u.setup.push(
    `insert into purchase (id, customer_id, status, total, placed_at) values (${p}, ${f.customer(i)}, 'pending', 12.50, timestamptz '2026-01-01');`,
    `insert into purchase_line (id, purchase_id, product_id, qty, price) values ${ls.map((l, k) => `(${l}, ${p}, ${f.product(i, k)}, 1, 3.00)`).join(', ')};`,
  )
  return [p, ls]
}

function graph(f: ShopFixtures, i: number): CellUnit {
  const rng = seededPrng(1_000 + i)
  const u = new Builder()
  const c = u.insert('customer', {
    name: `graph customer ${i}`,
    email: `g${i}@example.com`,
    tier: rng.int(4),
    marketing: rng.chance(0.4),
    updated_at: at(i),
  })
  for (let p = 0; p < 2; p++) {
    const purchase = u.insert('purchase', {
      customer_id: c,
      status: rng.pick(['pending', 'paid']),
      total: money(i, p),
      note: rng.chance(0.3) ? `gift wrap ${i}` : null,
      placed_at: at(i),
    })
    for (let k = 0; k < LINES_PER_PURCHASE; k++)
      u.insert('purchase_line', {
        purchase_id: purchase,
        product_id: f.product(i, k),
        qty: 1 + rng.int(3),
        price: money(i, k),
      })
    u.insert('payment', {
      purchase_id: purchase,
      amount: money(i, p),
      method: rng.pick(['card', 'paypal', 'transfer']),
      paid_at: at(i),
    })
  }
  u.insert('audit_event', {
    customer_id: c,
    action: 'signup',
    detail: { action: 'signup', unit: i },
    at: at(i),
  })
  return u.build('graph')
}

function update(f: ShopFixtures, i: number): CellUnit {
  const rng = seededPrng(2_000 + i)
  const u = new Builder()
  const c = f.customer(i)
  const p = f.purchase(i)
  const products = Array.from({ length: PRODUCTS_PER_UNIT }, (_, k) => f.product(i, k))
  u.read('customer', [c])
  u.read('purchase', [p])
  u.read('purchase_line', [p], 'purchase_id')
  u.read('product', products)
  u.updates.push({
    table: 'customer',
    id: c,
    set: someOf(rng, {
      name: `renamed ${i}`,
      email: `moved-${i}@example.com`,
      tier: 100 + i,
      marketing: i % 2 === 0,
      updated_at: at(i),
    }),
  })
  u.updates.push({
    table: 'purchase',
    id: p,
    set: someOf(rng, {
      status: rng.pick(['pending', 'packed', 'returned']),
      note: `changed ${i}`,
      total: money(i),
    }),
  })
  for (let k = 0; k < LINES_PER_PURCHASE; k++)
    if (rng.chance(0.5))
      u.updates.push({
        table: 'purchase_line',
        id: f.base + (f.slot(i) - 1) * LINES_PER_PURCHASE + 1 + k,
        set: someOf(rng, { qty: 10 + i, price: money(i, k) }),
      })
  products.forEach((product, k) => {
    u.updates.push({
      table: 'product',
      id: product,
      set: someOf(rng, { stock: 9000 + i + k, price: money(i, k), updated_at: at(i) }),
    })
  })
  return u.build('update')
}

function remove(f: ShopFixtures, i: number): CellUnit {
  const u = new Builder()
  const [p1] = setupPurchase(u, f, i, 2)
  const [p2] = setupPurchase(u, f, i, 2)
  const [, lines] = setupPurchase(u, f, i, 3)
  u.setup.push(
    `insert into payment (id, purchase_id, amount, method, paid_at) values (${f.setupId()}, ${p1}, 12.50, 'card', timestamptz '2026-01-01'), (${f.setupId()}, ${p2}, 12.50, 'card', timestamptz '2026-01-01');`,
  )
  const events = [f.setupId(), f.setupId()]
  u.setup.push(
    `insert into audit_event (id, customer_id, action, detail, at) values ${events.map((e) => `(${e}, ${f.customer(i)}, 'note', '{}', timestamptz '2026-01-01')`).join(', ')};`,
  )
  const product = f.setupId()
  u.setup.push(
    `insert into product (id, sku, name, price, stock) values (${product}, 'SKU-D${i}', 'discontinued ${i}', 1.00, 0);`,
  )
  const gone = (lines as number[]).slice(0, 2)
  u.read('purchase', [p1, p2])
  u.read('purchase_line', gone)
  u.read('audit_event', events)
  u.read('product', [product])
  for (const id of [p1, p2]) u.deletes.push({ table: 'purchase', id })
  for (const id of gone) u.deletes.push({ table: 'purchase_line', id })
  for (const id of events) u.deletes.push({ table: 'audit_event', id })
  u.deletes.push({ table: 'product', id: product })
  return u.build('delete')
}

function mix(f: ShopFixtures, i: number): CellUnit {
  const rng = seededPrng(4_000 + i)
  const u = new Builder()
  const c = f.customer(i)
  const products = [f.product(i, 0), f.product(i, 1)]
  const [gonePurchase] = setupPurchase(u, f, i, 2)
  const [, lines] = setupPurchase(u, f, i, 2)
  const goneLine = lines[0] as number
  u.read('customer', [c])
  u.read('purchase', [f.purchase(i), gonePurchase])
  u.read('purchase_line', [goneLine])
  u.read('product', products)
  const purchase = u.insert('purchase', {
    customer_id: c,
    status: 'pending',
    total: money(i),
    note: rng.chance(0.3) ? `gift wrap ${i}` : null,
    placed_at: at(i),
  })
  products.forEach((product, k) => {
    u.insert('purchase_line', {
      purchase_id: purchase,
      product_id: product,
      qty: 1 + rng.int(3),
      price: money(i, k),
    })
  })
  u.insert('payment', {
    purchase_id: purchase,
    amount: money(i),
    method: rng.pick(['card', 'paypal']),
    paid_at: at(i),
  })
  u.insert('audit_event', {
    customer_id: c,
    action: 'checkout',
    detail: { action: 'checkout', unit: i },
    at: at(i),
  })
  u.updates.push({ table: 'customer', id: c, set: someOf(rng, { tier: 100 + i, updated_at: at(i) }) })
  products.forEach((product, k) => {
    u.updates.push({
      table: 'product',
      id: product,
      set: someOf(rng, { stock: 5000 + i + k, updated_at: at(i) }),
    })
  })
  u.updates.push({ table: 'purchase', id: f.purchase(i), set: { status: rng.pick(['packed', 'shipped']) } })
  u.deletes.push({ table: 'purchase', id: gonePurchase })
  u.deletes.push({ table: 'purchase_line', id: goneLine })
  return u.build('mix')
}

/** Purchases the `load` cell's customer gets besides its fixture one, with 3 lines each. */
const LOAD_PURCHASES = 4

/**
 * The `load` cell's unit: nothing to read first nor to write (the load is what is measured). The
 * client's first one gives the customer it loads (unit 0's) 4 more purchases of 3 lines each, on the
 * products of fixture units 1 to 4, so that a load reads 5 purchases, 15 lines and 15 products.
 */
function load(f: ShopFixtures, i: number): CellUnit {
  const u = new Builder()
  if (i === 0) {
    for (let k = 1; k <= LOAD_PURCHASES; k++) {
      const purchase = f.setupId()
      u.setup.push(
        `insert into purchase (id, customer_id, status, total, placed_at) values (${purchase}, ${f.customer(0)}, 'paid', ${money(k)}, timestamptz '2026-01-01' + ${k} * interval '1 day');`,
      )
      for (let j = 0; j < LINES_PER_PURCHASE; j++)
        u.setup.push(
          `insert into purchase_line (id, purchase_id, product_id, qty, price) values (${f.setupId()}, ${purchase}, ${f.product(k, j)}, ${j + 1}, ${money(k, j)});`,
        )
    }
  }
  return u.build('load')
}

const BUILDERS: Readonly<Record<ShopCell, (f: ShopFixtures, i: number) => CellUnit>> = {
  graph,
  update,
  delete: remove,
  mix,
  load,
}

/**
 * Unit `i` of `cell` on the rows of `fixtures`: the same on every client but for its rows' ids.
 *
 * @example
 * const unit = cellUnit('update', fixtures, 0) // reads customer, purchase, its lines, 4 products; updates them
 */
export function cellUnit(cell: ShopCell, fixtures: ShopFixtures, i: number): CellUnit {
  return BUILDERS[cell](fixtures, i)
}
