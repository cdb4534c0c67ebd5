// The request scenario: one read-modify-write request of a web application on the realistic shop
// (see bench/README.md, "The request scenario"). What a request reads and changes, as plain data every
// library replays the same way; each library's file loads the graph and applies the changes its way.
import type { ConnectionCounter } from '../measure/connection-counter.ts'
import { SEED } from '../realistic/shop-schema.ts'
import type { NewRow, Update } from '../realistic/unit.ts'
import type { DriverName, LibraryReport, SeriesName, Target } from '../series/types.ts'

/**
 * What a request loaded: a customer, its purchases, their lines and each line's product (ids as
 * numbers, purchases and lines in id order), whatever the library's objects look like.
 */
export interface RequestGraph {
  readonly customer: number
  readonly purchases: readonly {
    readonly id: number
    readonly lines: readonly {
      readonly id: number
      readonly qty: number
      readonly product: { readonly id: number; readonly stock: number }
    }[]
  }[]
}

/** A request's changes: updates of loaded rows, then new rows (parents first, a `Ref` for a new parent). */
export interface RequestChanges {
  readonly updates: readonly Update[]
  readonly inserts: readonly NewRow[]
}

/** Tables the graph spans (customer, purchase, purchase_line, product). */
export const GRAPH_TABLES = 4

/**
 * The customer of request `i`: distinct for 400 consecutive requests (37 is prime to the 400
 * seeded customers), each with the two seeded purchases of three lines.
 *
 * @example
 * requestCustomer(0) // 1
 */
export function requestCustomer(i: number): number {
  return 1 + ((i * 37) % SEED.customers)
}

const at = (i: number) => new Date(Date.UTC(2026, 6, 1) + i * 61_000)
const money = (i: number, k = 0) =>
  `${10 + ((i * 11 + k * 17) % 490)}.${String((i + k * 3) % 100).padStart(2, '0')}`

/**
 * The changes of request `i` on what it loaded (a re-order from the customer's latest purchase): the
 * customer's tier and date, the latest purchase's status and note, its first line's quantity + 1, that
 * line's product's stock - 1 (4 updates in 4 tables); a new purchase with two lines of the latest
 * purchase's products (referencing the new purchase) and an audit event (4 new rows in 3 tables).
 *
 * @example
 * requestChanges(graph, 7).updates.map((u) => u.table) // ['customer', 'purchase', 'purchase_line', 'product']
 */
export function requestChanges(graph: RequestGraph, i: number): RequestChanges {
  const latest = graph.purchases[graph.purchases.length - 1]
  const first = latest?.lines[0]
  if (!latest || !first)
    throw new Error(`request ${i}: customer ${graph.customer} has no purchase with lines`)
  const second = latest.lines[1] ?? first
  const customer = graph.customer
  return {
    updates: [
      { table: 'customer', id: customer, set: { tier: 100 + (i % 50), updated_at: at(i) } },
      { table: 'purchase', id: latest.id, set: { status: 'packed', note: `request ${i}` } },
      { table: 'purchase_line', id: first.id, set: { qty: first.qty + 1 } },
      { table: 'product', id: first.product.id, set: { stock: first.product.stock - 1 } },
    ],
    inserts: [
      {
        table: 'purchase',
        values: { customer_id: customer, status: 'pending', total: money(i), note: null, placed_at: at(i) },
      },
      ...[first, second].map((line, k) => ({
        table: 'purchase_line' as const,
        values: { purchase_id: { ref: 0 }, product_id: line.product.id, qty: 1 + k, price: money(i, k + 1) },
      })),
      {
        table: 'audit_event',
        values: {
          customer_id: customer,
          action: 'reorder',
          detail: { request: i, from: latest.id },
          at: at(i),
        },
      },
    ],
  }
}

/**
 * A graph from rows keyed loosely (ids as numbers, bigint or text), sorted by id: what each library
 * hands {@link requestChanges}.
 */
export function sortedGraph(graph: RequestGraph): RequestGraph {
  const byId = <T extends { readonly id: number }>(xs: readonly T[]) => [...xs].sort((a, b) => a.id - b.id)
  return {
    customer: graph.customer,
    purchases: byId(graph.purchases).map((p) => ({ id: p.id, lines: byId(p.lines) })),
  }
}

/** A request's graph loaded in a fresh unit of work, waiting for its changes and flush. */
export interface LoadedRequest {
  readonly graph: RequestGraph
  /** Applies `changes` to what was loaded and writes them in one transaction. */
  flush(changes: RequestChanges): Promise<LibraryReport | undefined>
}

/** An open client of a library serving requests one after the other. */
export interface RequestClient {
  readonly counter: ConnectionCounter
  /** Loads customer `customer`'s graph in a fresh unit of work. */
  load(customer: number): Promise<LoadedRequest>
  close(): Promise<void>
}

/** A library (used one way) serving the request. */
export interface RequestSeries {
  readonly name: SeriesName
  readonly driver: DriverName
  /** The name, with the driver for series on both drivers, and the variant (`mikroorm (joined)`). */
  readonly id: string
  /** How the library was used when there are several ways (MikroORM's load strategy). */
  readonly variant?: string
  readonly description: string
  unavailableReason(): Promise<string | undefined>
  /** A client of `pool` connections, connected. */
  open(target: Target, pool: number): Promise<RequestClient>
}
