// With drizzle-shop.ts, the file that knows Drizzle's API (select, transaction, insert, update, delete).
import { eq, inArray } from 'drizzle-orm'
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres'
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js'
import { openDriver } from '../series/driver-client.ts'
import { type DriverName, seriesId } from '../series/types.ts'
import { byProperty, columnOf, DRIZZLE_TABLES, drizzleShop } from './drizzle-shop.ts'
import type { RealisticSeries, UnitRunner } from './runner.ts'
import { isRef, type NewRow, type Unit } from './unit.ts'

/**
 * Drizzle ORM replaying units of work as its documentation writes them: each read a
 * `db.select().from(table).where(inArray(...))`, awaited; the writes in `db.transaction(async (tx) =>
 * ...)`, each statement awaited: the rows of one table inserted together by one
 * `insert(...).values([...]).returning({ id })` (a new parent's id taken from its insert's returning),
 * each changed row updated and each removed row deleted by its own statement. BEGIN, each statement,
 * COMMIT: one round trip each.
 */
function drizzleRealistic(driver: DriverName): RealisticSeries {
  return {
    name: 'drizzle',
    driver,
    id: seriesId('drizzle', driver),
    description: `Drizzle ORM db.transaction, each statement awaited, on ${driver === 'pg' ? 'a pg.Pool with pipeline: true' : 'postgres.js'}`,
    unavailableReason: async () => undefined,
    async open(target, pool): Promise<UnitRunner> {
      const c = await openDriver(driver, target.url, pool, { connect: false })
      const db =
        c.driver === 'pg'
          ? drizzlePg(c.client, { schema: drizzleShop })
          : (drizzlePostgresJs(c.client, { schema: drizzleShop }) as unknown as ReturnType<
              typeof drizzlePg<typeof drizzleShop>
            >)
      return {
        counter: c.counter,
        async prepare(unit: Unit) {
          for (const read of unit.reads)
            await db
              .select()
              .from(DRIZZLE_TABLES[read.table])
              .where(inArray(columnOf(read.table, read.column), [...read.ids]))
          return async () => {
            await db.transaction(async (tx) => {
              const ids: number[] = []
              for (const rows of runsOfOneTable(unit.inserts)) {
                const table = rows[0]!.table
                const inserted = await tx
                  .insert(DRIZZLE_TABLES[table])
                  .values(
                    rows.map((row) =>
                      byProperty(
                        table,
                        Object.fromEntries(
                          Object.entries(row.values).map(([c, v]) => [c, isRef(v) ? ids[v.ref] : v]),
                        ),
                      ),
                    ),
                  )
                  .returning({ id: columnOf(table, 'id') })
                for (const r of inserted) ids.push(r.id as number)
              }
              for (const u of unit.updates)
                await tx
                  .update(DRIZZLE_TABLES[u.table])
                  .set(byProperty(u.table, u.set))
                  .where(eq(columnOf(u.table, 'id'), u.id))
              for (const d of unit.deletes)
                await tx.delete(DRIZZLE_TABLES[d.table]).where(eq(columnOf(d.table, 'id'), d.id))
            })
            return undefined
          }
        },
        close: c.close,
      }
    },
  }
}

/** The unit's inserts in runs of consecutive rows of one table (parents stay before their children). */
function runsOfOneTable(inserts: readonly NewRow[]): NewRow[][] {
  const runs: NewRow[][] = []
  for (const row of inserts) {
    const last = runs[runs.length - 1]
    if (last !== undefined && last[0]!.table === row.table) last.push(row)
    else runs.push([row])
  }
  return runs
}

/** Drizzle on postgres.js and on a `pg.Pool`. */
export const drizzleRealistic2: readonly RealisticSeries[] = [
  drizzleRealistic('postgres.js'),
  drizzleRealistic('pg'),
]
