// Runs in a scratch app that has neither `pg` nor `postgres` installed: both packages must load, type-check
// and reject a client that is not one.
import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { createEntityManagerFactory, describeFlush } from '@pipeflush/kysely'

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
  await EntityManager.connect({ query: () => {} })
  throw new Error('EntityManager.connect accepted a client that is none')
} catch (e) {
  if (!isPipeflushError(e, 'INVALID_CONFIG')) throw e
  console.log(e.code, typeof describeFlush) // INVALID_CONFIG function
}
