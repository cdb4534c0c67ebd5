// With drizzle-shop.ts, the file that knows @pipeflush/drizzle's API (find, create, assign, remove).
import { createEntityManagerFactory } from '@pipeflush/drizzle'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js'
import { openDriver } from '../series/driver-client.ts'
import { type DriverName, seriesId } from '../series/types.ts'
import { byProperty, DRIZZLE_TABLES, drizzleShop } from './drizzle-shop.ts'
import type { RealisticSeries, UnitRunner } from './runner.ts'
import { isRef, type Unit } from './unit.ts'

type Entity = Record<string, unknown>

/**
 * pipeflush through `@pipeflush/drizzle`, the path a Drizzle application takes: the factory on the
 * application's Drizzle database (its schema from the table definitions, no catalog read), each unit
 * in a fresh `factory.fork()`, rows loaded with `em.find(table, { property: ids })`, new rows with
 * `em.create` (a new parent given as its entity), loaded rows changed by assignment and removed with
 * `em.remove`, then one `em.flush()` (burst).
 */
function pipeflushDrizzleRealistic(driver: DriverName): RealisticSeries {
  return {
    name: 'pipeflush-drizzle',
    driver,
    id: seriesId('pipeflush-drizzle', driver),
    description: `@pipeflush/drizzle em.flush() (burst) on the application's Drizzle database, ${driver === 'pg' ? 'a pg.Pool with pipeline: true' : 'postgres.js'}`,
    unavailableReason: async () => undefined,
    async open(target, pool): Promise<UnitRunner> {
      const c = await openDriver(driver, target.url, pool, { connect: false })
      try {
        const db =
          c.driver === 'pg'
            ? drizzlePg(c.client, { schema: drizzleShop })
            : drizzlePostgresJs(c.client, { schema: drizzleShop })
        const factory = await createEntityManagerFactory({ db })
        return {
          counter: c.counter,
          async prepare(unit: Unit) {
            const em = factory.fork()
            const loaded = new Map<string, Entity>()
            for (const read of unit.reads) {
              const where = byProperty(read.table, { [read.column]: read.ids })
              for (const row of await em.find(DRIZZLE_TABLES[read.table], where as never))
                loaded.set(`${read.table}:${String(row['id' as never])}`, row as Entity)
            }
            const created: Entity[] = []
            for (const row of unit.inserts) {
              const values = Object.fromEntries(
                Object.entries(row.values).map(([column, v]) => [column, isRef(v) ? created[v.ref] : v]),
              )
              created.push(
                em.create(DRIZZLE_TABLES[row.table], byProperty(row.table, values) as never) as Entity,
              )
            }
            const own = (table: string, id: number) => {
              const entity = loaded.get(`${table}:${id}`)
              if (!entity) throw new Error(`pipeflush-drizzle: ${table} ${id} was not loaded`)
              return entity
            }
            for (const u of unit.updates) Object.assign(own(u.table, u.id), byProperty(u.table, u.set))
            for (const d of unit.deletes) em.remove(own(d.table, d.id) as never)
            return () => em.flush()
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

/** @pipeflush/drizzle on postgres.js and on a `pg.Pool`. */
export const pipeflushDrizzleRealistic2: readonly RealisticSeries[] = [
  pipeflushDrizzleRealistic('postgres.js'),
  pipeflushDrizzleRealistic('pg'),
]
