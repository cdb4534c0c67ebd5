import { EntityManager, type PipelineMode, type SchemaModel } from '@pipeflush/core'
import type { DriverName, TestDatabase } from '@pipeflush/testkit/vitest'

/** What a type test needs of a client: a root entity manager, and a way to wait until it is idle. */
export interface TypeTestClient {
  readonly driver: DriverName
  readonly root: EntityManager
  /** Resolves once the client's connection answered everything sent before. */
  idle(): Promise<void>
}

export interface OpenClientOptions {
  readonly pipeline: PipelineMode
  /** Defaults to postgres.js. */
  readonly driver?: DriverName
  /** A schema declared in code; by default the entity manager reads the catalog. */
  readonly schema?: SchemaModel
  /** Inserts of at least this many rows go as COPY (pipeflush's default when left out). */
  readonly copyRows?: number
}

/**
 * The one place the type tests make a client: a fresh pool of one connection of `driver` (through the
 * file's proxy, ended after the file) and an entity manager on it.
 *
 * @example
 * const { root } = await openClient(db, { pipeline: 'burst', driver: 'pg' })
 */
export async function openClient(db: TestDatabase, options: OpenClientOptions): Promise<TypeTestClient> {
  const driver = options.driver ?? 'postgres.js'
  const client = db.client(driver, { max: 1 })
  const root = await EntityManager.connect(client.client, {
    pipeline: options.pipeline,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    ...(options.copyRows === undefined ? {} : { copyRows: options.copyRows }),
  })
  return {
    driver,
    root,
    idle: async () => {
      await client.query('select 1')
    },
  }
}
