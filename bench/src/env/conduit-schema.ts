import { createSchema } from '@pipeflush/example-conduit/schema'
import type postgres from 'postgres'
import { CONDUIT_RESET } from '../conduit/conduit-seed.ts'

/**
 * Creates the Conduit example's tables (its own DDL) in an empty database.
 *
 * @example
 * await createConduitSchema(postgres(conduitUrl, { max: 1 }))
 */
export async function createConduitSchema(sql: postgres.Sql): Promise<void> {
  await createSchema((text) => sql.unsafe(text))
}

/**
 * Empties the Conduit tables and seeds them again (the same rows every time; see `conduit-seed.ts`).
 *
 * @example
 * await resetConduit(admin)
 */
export async function resetConduit(sql: postgres.Sql): Promise<void> {
  await sql.unsafe(CONDUIT_RESET)
}
