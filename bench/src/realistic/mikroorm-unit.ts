import { MikroORM } from '@mikro-orm/postgresql'
import { createConnectionCounter } from '../measure/connection-counter.ts'
import { RELATIONS, shopEntitySchemas } from './mikroorm-shop.ts'
import type { RealisticSeries, UnitRunner } from './runner.ts'
import type { ShopTable } from './shop-schema.ts'
import { isRef, type Unit } from './unit.ts'

type Entity = Record<string, unknown>

/**
 * MikroORM 7 replaying units of work: a fresh `em.fork()` each, rows loaded with `em.find`, new rows
 * with `em.create` (existing parents as `em.getReference`), loaded rows changed by assignment and
 * removed with `em.remove`, then one `em.flush()`. Runs on node-postgres; a fresh ORM (its pool cold)
 * per run.
 */
export const mikroOrmRealistic: RealisticSeries = {
  name: 'mikroorm',
  driver: 'pg',
  id: 'mikroorm',
  description:
    'MikroORM 7 em.flush() on a fresh em.fork() per unit of work (EntitySchema entities, m:1 relations)',
  unavailableReason: async () => undefined,
  async open(target, pool): Promise<UnitRunner> {
    const counter = createConnectionCounter()
    const schemas = shopEntitySchemas()
    const orm = await MikroORM.init({
      clientUrl: target.url,
      entities: [...schemas.values()],
      pool: { min: 0, max: pool },
      driverOptions: { stream: counter.stream, application_name: 'pipeflush-bench' },
      debug: false,
    })
    const schema = (table: ShopTable) => {
      const s = schemas.get(table)
      if (!s) throw new Error(`mikroorm: no entity for ${table}`)
      return s
    }
    /** A unit's value for `table.column` as MikroORM takes it: a relation's entity or reference. */
    const value = (
      em: typeof orm.em,
      table: ShopTable,
      column: string,
      v: unknown,
      created: readonly Entity[],
    ) => {
      const relation = RELATIONS[table]?.[column]
      if (!relation) return [column, v] as const
      if (isRef(v)) return [relation.property, created[v.ref]] as const
      if (v === null) return [relation.property, null] as const
      return [relation.property, em.getReference(schema(relation.target), v as number)] as const
    }
    return {
      counter,
      async prepare(unit: Unit) {
        const em = orm.em.fork()
        const loaded = new Map<string, Entity>()
        for (const read of unit.reads) {
          const where =
            read.column === 'id' ? { id: { $in: [...read.ids] } } : { purchase: { $in: [...read.ids] } }
          for (const row of await em.find(schema(read.table), where as never))
            loaded.set(`${read.table}:${String(row['id'])}`, row as Entity)
        }
        const created: Entity[] = []
        for (const row of unit.inserts) {
          const data = Object.fromEntries(
            Object.entries(row.values).map(([c, v]) => value(em, row.table, c, v, created)),
          )
          created.push(em.create(schema(row.table), data as never) as Entity)
        }
        const own = (table: string, id: number) => {
          const entity = loaded.get(`${table}:${id}`)
          if (!entity) throw new Error(`mikroorm: ${table} ${id} was not loaded`)
          return entity
        }
        for (const u of unit.updates) Object.assign(own(u.table, u.id), u.set)
        for (const d of unit.deletes) em.remove(own(d.table, d.id))
        return async () => {
          await em.flush()
          return undefined
        }
      },
      close: () => orm.close(true),
    }
  },
}
