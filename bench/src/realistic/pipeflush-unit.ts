// With series/pipeflush.ts, the file that knows pipeflush's API (here: find, create, assign, remove).
import { openDriver } from '../series/driver-client.ts'
import { loadCore, pipeflushUnavailable } from '../series/pipeflush.ts'
import { type DriverName, seriesId } from '../series/types.ts'
import type { RealisticSeries, UnitRunner } from './runner.ts'
import { isRef, type Unit } from './unit.ts'

type Entity = Record<string, unknown>

/**
 * pipeflush replaying units of work: each in a fresh `em.fork()`, rows loaded with `em.find`, new rows
 * with `em.create` (a new parent given as its entity), loaded rows changed by assignment and removed
 * with `em.remove`, then one `em.flush()` (burst, the default).
 */
function pipeflushRealistic(driver: DriverName): RealisticSeries {
  return {
    name: 'pipeflush-burst',
    driver,
    id: seriesId('pipeflush-burst', driver),
    description: `pipeflush em.flush() (burst) on ${driver === 'pg' ? 'a pg.Pool with pipeline: true' : 'postgres.js'}`,
    unavailableReason: pipeflushUnavailable,
    async open(target, pool): Promise<UnitRunner> {
      const c = await openDriver(driver, target.url, pool, { connect: false })
      try {
        const { EntityManager } = await loadCore()
        const root = await EntityManager.connect(c.client)
        return {
          counter: c.counter,
          async prepare(unit: Unit) {
            const em = root.fork()
            const loaded = new Map<string, Entity>()
            for (const read of unit.reads)
              for (const row of await em.find(read.table, { [read.column]: read.ids }))
                loaded.set(`${read.table}:${String(row['id'])}`, row)
            const created: Entity[] = []
            for (const row of unit.inserts) {
              const values: Entity = {}
              for (const [column, v] of Object.entries(row.values))
                values[column] = isRef(v) ? created[v.ref] : v
              created.push(em.create(row.table, values))
            }
            const own = (table: string, id: number) => {
              const entity = loaded.get(`${table}:${id}`)
              if (!entity) throw new Error(`pipeflush: ${table} ${id} was not loaded`)
              return entity
            }
            for (const u of unit.updates) Object.assign(own(u.table, u.id), u.set)
            for (const d of unit.deletes) em.remove(own(d.table, d.id))
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

/** pipeflush on postgres.js and on a `pg.Pool`. */
export const pipeflushRealistic2: readonly RealisticSeries[] = [
  pipeflushRealistic('postgres.js'),
  pipeflushRealistic('pg'),
]
