import type { Driver } from './drivers/driver.ts'
import { driverFor } from './drivers/driver-for.ts'
import { checkFlushLog, flushLogSqlName } from './flush/flush-log.ts'
import { IdAllocator } from './ids/id-allocator.ts'
import {
  type EntityManagerOptions,
  flushTimeoutOption,
  idBlockSizeOption,
  pipelineOption,
  prepareOption,
} from './options.ts'
import { cachedSchema } from './schema/cached-schema.ts'
import type { SchemaModel } from './schema/model.ts'

/** What the entity managers of one client share. */
export interface ClientContext {
  readonly driver: Driver
  readonly schema: SchemaModel
  /** The id pool of the client, shared by all its entity managers. */
  readonly ids: IdAllocator
  /** Name pipelined statements (prepared once per connection). */
  readonly named: boolean
  /** The quoted SQL name of the flush log table, when configured. */
  readonly flushLog: string | undefined
}

const allocators = new WeakMap<Driver, IdAllocator>()

/**
 * Checks `options` (before any I/O), then reads what the client's entity managers share: the schema
 * (once per client and options, unless declared in code), the flush log table (checked), and for a
 * pipelining node-postgres pool whether statements may be named (a pooler check, one query).
 *
 * @example
 * const context = await connectClient(postgres(url), { versionColumn: 'version' })
 */
export async function connectClient(client: unknown, options: EntityManagerOptions): Promise<ClientContext> {
  pipelineOption(options.pipeline)
  flushTimeoutOption(options.flushTimeoutMs)
  const blockSize = idBlockSizeOption(options.idBlockSize)
  const prepare = prepareOption(options.prepare)
  const flushLog = options.flushLog === undefined ? undefined : flushLogSqlName(options.flushLog)
  const driver = driverFor(client)
  const schema = options.schema ?? (await cachedSchema(driver, options))
  if (options.flushLog !== undefined) await checkFlushLog(driver, options.flushLog)
  let ids = allocators.get(driver)
  if (!ids) {
    ids = new IdAllocator({ blockSize })
    allocators.set(driver, ids)
  }
  const named = prepare ?? (driver.pipelines ? !(await driver.detectPooler()) : false)
  return { driver, schema, ids, named, flushLog }
}
