import type { Driver } from '../drivers/driver.ts'
import type { FlushHooks } from '../hooks/flush-hooks.ts'
import type { IdAllocator } from '../ids/id-allocator.ts'
import type { ServerValuesPolicy } from '../plan/server-values.ts'
import type { SchemaModel } from '../schema/model.ts'
import type { PipelineMode } from './pipeline-mode.ts'

/**
 * What an entity manager runs with: its client's parts (the driver, the schema, the id pool, and what
 * the options made of them) and its own (the pipeline mode, the timeout). One object, made by
 * `EntityManager.connect` and by a fork with other options, handed as it is to every stage of a flush
 * (the planner, the connection, the modes) and to reads: each setting is declared here only.
 */
export interface FlushSettings {
  readonly driver: Driver
  readonly schema: SchemaModel
  /** The id pool of the client, shared by all its entity managers. */
  readonly ids: IdAllocator
  /** How a flush is sent (see `modes.ts`). */
  readonly mode: PipelineMode
  /** A flush (or a read) settles within this many milliseconds, reserving a connection included (Infinity: no limit). */
  readonly timeoutMs: number
  /** Name pipelined statements (prepared once per connection). */
  readonly named: boolean
  /**
   * Send a `burst` as named pipelined statements (`prepare: true` on a pipelining node-postgres pool)
   * instead of one simple-protocol message.
   */
  readonly preparedBurst: boolean
  /** The quoted SQL name of the flush log table, when configured. */
  readonly flushLog: string | undefined
  /** Which tables read back the values the server fills. */
  readonly serverValues: ServerValuesPolicy
  /** Inserts of at least this many rows go as COPY (Infinity: never, or the driver cannot). */
  readonly copyRows: number
  /** Code run as part of every flush, if any. */
  readonly hooks: FlushHooks | undefined
}
