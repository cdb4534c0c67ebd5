import { openClient } from '@pipeflush/testkit'
import type pg from 'pg'
import { createConnectionCounter } from '../measure/connection-counter.ts'
import { isRef, type Value } from '../realistic/unit.ts'
import type { RequestClient, RequestSeries } from './request.ts'
import { sortedGraph } from './request.ts'

type Row = Record<string, unknown>

/**
 * node-postgres as an application without an ORM uses it (a `pg.Pool`, no `pipeline`): the graph read
 * one query per level (the customer, its purchases, their lines, their products), then the writes in a
 * transaction on one client: BEGIN, each statement awaited (an update per changed row, an insert per
 * new row with `returning id`, a child taking its new parent's id), COMMIT.
 */
export const rawPgRequest: RequestSeries = {
  name: 'raw-pg',
  driver: 'pg',
  id: 'raw-pg',
  description:
    'node-postgres pg.Pool: one select per level of the graph, then BEGIN, each update and insert awaited, COMMIT',
  unavailableReason: async () => undefined,
  async open(target, max): Promise<RequestClient> {
    const counter = createConnectionCounter()
    const { client } = openClient('pg', target.url, counter, {
      max,
      pg: { application_name: 'pipeflush-bench', pipeline: false },
    })
    const pool = client as pg.Pool
    await pool.query('select 1')
    const rows = async (text: string, params: unknown[]) => (await pool.query(text, params)).rows as Row[]
    return {
      counter,
      async load(customerId) {
        const [customer] = await rows('select * from customer where id = $1', [customerId])
        if (!customer) throw new Error(`raw-pg: no customer ${customerId}`)
        const purchases = await rows('select * from purchase where customer_id = $1', [customerId])
        const lines = await rows('select * from purchase_line where purchase_id = any($1::int8[])', [
          purchases.map((p) => p['id']),
        ])
        const products = await rows('select * from product where id = any($1::int8[])', [
          [...new Set(lines.map((l) => l['product_id']))],
        ])
        const product = new Map(products.map((p) => [Number(p['id']), p]))
        const graph = sortedGraph({
          customer: customerId,
          purchases: purchases.map((p) => ({
            id: Number(p['id']),
            lines: lines
              .filter((l) => Number(l['purchase_id']) === Number(p['id']))
              .map((l) => ({
                id: Number(l['id']),
                qty: Number(l['qty']),
                product: {
                  id: Number(l['product_id']),
                  stock: Number(product.get(Number(l['product_id']))?.['stock']),
                },
              })),
          })),
        })
        return {
          graph,
          async flush(changes) {
            const tx = await pool.connect()
            try {
              await tx.query('begin')
              for (const u of changes.updates) {
                const columns = Object.keys(u.set)
                await tx.query(
                  `update ${u.table} set ${columns.map((c, i) => `${c} = $${i + 1}`).join(', ')} where id = $${columns.length + 1}`,
                  [...Object.values(u.set), u.id],
                )
              }
              const ids: unknown[] = []
              for (const row of changes.inserts) {
                const columns = Object.keys(row.values)
                const params = Object.values(row.values).map((v): Value | unknown =>
                  isRef(v) ? ids[v.ref] : v,
                )
                const result = await tx.query(
                  `insert into ${row.table} (${columns.join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')}) returning id`,
                  params,
                )
                ids.push(result.rows[0]?.id)
              }
              await tx.query('commit')
            } catch (e) {
              await tx.query('rollback').catch(() => {})
              throw e
            } finally {
              tx.release()
            }
            return undefined
          },
        }
      },
      close: () => pool.end(),
    }
  },
}
