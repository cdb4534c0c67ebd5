import { type Collection, LoadStrategy } from '@mikro-orm/core'
import { MikroORM } from '@mikro-orm/postgresql'
import { createConnectionCounter } from '../measure/connection-counter.ts'
import { RELATIONS, shopEntitySchemas } from '../realistic/mikroorm-shop.ts'
import type { ShopTable } from '../realistic/shop-schema.ts'
import { isRef } from '../realistic/unit.ts'
import type { RequestClient, RequestGraph, RequestSeries } from './request.ts'
import { sortedGraph } from './request.ts'

type Entity = Record<string, unknown>

/** MikroORM's ways of populating the graph that the request scenario measures. */
export const MIKROORM_STRATEGIES = ['joined', 'select-in'] as const
export type MikroOrmStrategy = (typeof MIKROORM_STRATEGIES)[number]

const items = (v: unknown) => (v as Collection<Entity>).getItems()

/**
 * MikroORM 7 serving the request: a fresh `em.fork()`, `em.findOneOrFail(customer, id, { populate:
 * ['purchases.lines.product'], strategy })` (`joined`: one select with joins; `select-in`: one select
 * per level), assignments and `em.create` (parents as entities or references), one `em.flush()`
 * (BEGIN, its statements awaited in turn, COMMIT). On node-postgres, a pool of `pool`.
 */
function mikroOrmRequest(strategy: MikroOrmStrategy): RequestSeries {
  return {
    name: 'mikroorm',
    driver: 'pg',
    id: `mikroorm (${strategy})`,
    variant: strategy,
    description: `MikroORM 7 em.findOneOrFail(customer, { populate: purchases.lines.product, strategy: '${strategy}' }), changes, em.flush()`,
    unavailableReason: async () => undefined,
    async open(target, pool): Promise<RequestClient> {
      const counter = createConnectionCounter()
      const schemas = shopEntitySchemas({ collections: true })
      const orm = await MikroORM.init({
        clientUrl: target.url,
        entities: [...schemas.values()],
        pool: { min: 0, max: pool },
        driverOptions: { stream: counter.stream, application_name: 'pipeflush-bench' },
        debug: false,
      })
      await orm.em.getConnection().execute('select 1')
      const schema = (table: ShopTable) => {
        const s = schemas.get(table)
        if (!s) throw new Error(`mikroorm: no entity for ${table}`)
        return s
      }
      return {
        counter,
        async load(customerId) {
          const em = orm.em.fork()
          const customer = (await em.findOneOrFail(schema('customer'), { id: customerId } as never, {
            populate: ['purchases.lines.product'] as never,
            strategy: strategy === 'joined' ? LoadStrategy.JOINED : LoadStrategy.SELECT_IN,
          })) as Entity
          const loaded = new Map<string, Entity>([[`customer:${customerId}`, customer]])
          const keep = (table: string, e: Entity) => {
            loaded.set(`${table}:${Number(e['id'])}`, e)
            return Number(e['id'])
          }
          const graph: RequestGraph = sortedGraph({
            customer: customerId,
            purchases: items(customer['purchases']).map((p) => ({
              id: keep('purchase', p),
              lines: items(p['lines']).map((l) => {
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
                if (!entity) throw new Error(`mikroorm: ${u.table} ${u.id} was not loaded`)
                Object.assign(entity, u.set)
              }
              const created: Entity[] = []
              for (const row of changes.inserts) {
                const data: Entity = {}
                for (const [column, v] of Object.entries(row.values)) {
                  const relation = RELATIONS[row.table]?.[column]
                  if (!relation) data[column] = v
                  else if (isRef(v)) data[relation.property] = created[v.ref]
                  else
                    data[relation.property] =
                      loaded.get(`${relation.target}:${v}`) ??
                      em.getReference(schema(relation.target), v as number)
                }
                created.push(em.create(schema(row.table), data as never) as Entity)
              }
              await em.flush()
              return undefined
            },
          }
        },
        close: () => orm.close(true),
      }
    },
  }
}

/** MikroORM with each populate strategy (the report says which was faster). */
export const mikroOrmRequests: readonly RequestSeries[] = MIKROORM_STRATEGIES.map(mikroOrmRequest)
