import type { DriverName, TestDatabase } from '@pipeflush/testkit/vitest'
import { type Implementation, type RunningConduit, startConduit } from '../../src/app.ts'

/** The implementations and drivers the behaviour tests run on. */
export function configurations(
  drivers: readonly DriverName[],
): readonly { readonly driver: DriverName; readonly implementation: Implementation }[] {
  return drivers.flatMap((driver) =>
    (['pipeflush', 'kysely'] as const).map((implementation) => ({ driver, implementation })),
  )
}

/** The tokens' secret of the Conduit the tests start (so that a test can sign a token of its own). */
export const TEST_SECRET = new TextEncoder().encode('conduit tests: not a secret')

/**
 * Conduit on a pool of `max` connections of the test database (through its proxy), signing tokens
 * with {@link TEST_SECRET}, scrypt's cost lowered for speed (the tests do not measure it).
 *
 * @example
 * const conduit = await conduitOn(db, 'pg', 'pipeflush')
 */
export function conduitOn(
  db: TestDatabase,
  driver: DriverName,
  implementation: Implementation,
  max = 4,
): Promise<RunningConduit> {
  return startConduit({
    pool: db.client(driver, { max }),
    implementation,
    scryptN: 1024,
    secret: TEST_SECRET,
  })
}

/** Every table's rows, ordered: to compare the database before and after requests that must write nothing. */
export async function snapshot(db: TestDatabase): Promise<Record<string, unknown[]>> {
  const tables = ['app_user', 'follow', 'article', 'tag', 'article_tag', 'favorite', 'comment']
  const result: Record<string, unknown[]> = {}
  for (const table of tables)
    result[table] = [...(await db.sql.unsafe(`select * from ${table} order by 1, 2`))]
  return result
}
