import type { TestClient } from '@pipeflush/testkit'
import { Kysely, PostgresDialect } from 'kysely'
import { PostgresJSDialect } from 'kysely-postgres-js'
import type pg from 'pg'
import type postgres from 'postgres'

/**
 * The application's Kysely instance on its pool, as an application makes it: a `PostgresDialect` on
 * the `pg.Pool`, or a `PostgresJSDialect` on the postgres.js `sql`. Hand both to
 * `createEntityManagerFactory({ client, db })`: reads and flushes then share that one pool. Ending the
 * pool ends it (do not also call `db.destroy()`, which would end the pool a second time).
 *
 * @example
 * const app = exampleDb.connect(4)
 * const factory = await createEntityManagerFactory<DB>({ client: app.client, db: appKysely<DB>(app) })
 */
export function appKysely<DB>(pool: Pick<TestClient, 'driver' | 'client'>): Kysely<DB> {
  if (pool.driver === 'postgres.js') {
    return new Kysely<DB>({ dialect: new PostgresJSDialect({ postgres: pool.client as postgres.Sql }) })
  }
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool: pool.client as pg.Pool }) })
}
