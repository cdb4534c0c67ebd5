// With series/pipeflush.ts and realistic/pipeflush-unit.ts, a file that knows pipeflush's API (here:
// load with a relation tree, navigation of loaded relations, assignment, create, flush).
import { isRef } from '../realistic/unit.ts'
import { openDriver } from '../series/driver-client.ts'
import { loadCore, pipeflushUnavailable } from '../series/pipeflush.ts'
import { type DriverName, seriesId } from '../series/types.ts'
import type { RequestClient, RequestGraph, RequestSeries } from './request.ts'
import { sortedGraph } from './request.ts'

type Entity = Record<string, unknown>

/** The relation tree of the request: the customer's purchases, their lines, each line's product. */
export const REQUEST_WITH = { purchases: { purchase_lines: { product: true } } } as const

const list = (v: unknown) => v as readonly Entity[]

/**
 * pipeflush serving the request as an application would: a fresh `em.fork()`, `em.load('customer', id,
 * { with })` (the whole graph in one round trip), assignments and `em.create` on what it loaded, one
 * `em.flush()` (burst, the default: one round trip).
 */
function pipeflushRequest(driver: DriverName): RequestSeries {
  return {
    name: 'pipeflush-burst',
    driver,
    id: seriesId('pipeflush-burst', driver),
    description: `pipeflush em.load(customer, { with: purchases.purchase_lines.product }), changes, em.flush() on ${driver === 'pg' ? 'a pg.Pool with pipeline: true' : 'postgres.js'}`,
    unavailableReason: pipeflushUnavailable,
    async open(target, pool): Promise<RequestClient> {
      const c = await openDriver(driver, target.url, pool)
      try {
        const { EntityManager } = await loadCore()
        const root = await EntityManager.connect(c.client)
        return {
          counter: c.counter,
          async load(customerId) {
            const em = root.fork()
            const customer = await em.load('customer', customerId, { with: REQUEST_WITH })
            const loaded = new Map<string, Entity>([[`customer:${customerId}`, customer]])
            const keep = (table: string, e: Entity) => {
              loaded.set(`${table}:${Number(e['id'])}`, e)
              return Number(e['id'])
            }
            const graph: RequestGraph = sortedGraph({
              customer: customerId,
              purchases: list(customer['purchases']).map((p) => ({
                id: keep('purchase', p),
                lines: list(p['purchase_lines']).map((l) => {
                  const product = l['product'] as Entity
                  return {
                    id: keep('purchase_line', l),
                    qty: Number(l['qty']),
                    product: { id: keep('product', product), stock: Number(product['stock']) },
                  }
                }),
              })),
            })
            return {
              graph,
              async flush(changes) {
                for (const u of changes.updates) {
                  const entity = loaded.get(`${u.table}:${u.id}`)
                  if (!entity) throw new Error(`pipeflush: ${u.table} ${u.id} was not loaded`)
                  Object.assign(entity, u.set)
                }
                const created: Entity[] = []
                for (const row of changes.inserts) {
                  const values: Entity = {}
                  for (const [column, v] of Object.entries(row.values))
                    values[column] = isRef(v) ? created[v.ref] : v
                  created.push(em.create(row.table, values))
                }
                return em.flush()
              },
            }
          },
          close: c.close,
        }
      } catch (e) {
        await c.close()
        throw e
      }
    },
  }
}

/** pipeflush on postgres.js and on a `pg.Pool`. */
export const pipeflushRequest2: readonly RequestSeries[] = [
  pipeflushRequest('postgres.js'),
  pipeflushRequest('pg'),
]
