// Runs in a scratch app that has neither `pg` nor `postgres` installed: the packages must load, type-check
// and reject a client (or a Drizzle database) that is not one.
import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { createEntityManagerFactory as drizzleFactory } from '@pipeflush/drizzle'
import { createEntityManagerFactory, describeFlush } from '@pipeflush/kysely'
import type { PgDatabase } from 'drizzle-orm/pg-core'

interface DB {
  author: { id: number; name: string }
}

try {
  await createEntityManagerFactory<DB>({ client: {} })
  throw new Error('createEntityManagerFactory accepted a client that is none')
} catch (e) {
  if (!isPipeflushError(e, 'INVALID_CONFIG')) throw e
}
try {
  // biome-ignore lint/suspicious/noExplicitAny: any Drizzle database type, for a value that is none
  await drizzleFactory({ db: {} as PgDatabase<any, Record<string, never>> })
  throw new Error('@pipeflush/drizzle accepted a database that is none')
} catch (e) {
  if (!isPipeflushError(e, 'INVALID_CONFIG')) throw e
}
try {
  await EntityManager.connect({ query: () => {} })
  throw new Error('EntityManager.connect accepted a client that is none')
} catch (e) {
  if (!isPipeflushError(e, 'INVALID_CONFIG')) throw e
  console.log(e.code, typeof describeFlush) // INVALID_CONFIG function
}
