import type { ExamplePool } from '@pipeflush/example-support'
import { drizzle as drizzlePg, type NodePgDatabase } from 'drizzle-orm/node-postgres'
import { drizzle as drizzlePostgresJs } from 'drizzle-orm/postgres-js'
import type pg from 'pg'
import type postgres from 'postgres'
import { schema } from './schema.ts'

/** The application's Drizzle database, whatever its driver (their query builders are the same). */
export type AppDb = NodePgDatabase<typeof schema>

/**
 * The application's Drizzle database on its pool, as an application makes it: `drizzle-orm/node-postgres`
 * on the `pg.Pool`, `drizzle-orm/postgres-js` on the postgres.js `sql`. `@pipeflush/drizzle` takes it
 * and uses its pool.
 *
 * @example
 * const db = appDrizzle(exampleDb.connect(1))
 * const factory = await createEntityManagerFactory({ db })
 */
export function appDrizzle(pool: Pick<ExamplePool, 'driver' | 'client'>): AppDb {
  if (pool.driver === 'postgres.js')
    return drizzlePostgresJs(pool.client as postgres.Sql, { schema }) as unknown as AppDb
  return drizzlePg(pool.client as pg.Pool, { schema })
}
