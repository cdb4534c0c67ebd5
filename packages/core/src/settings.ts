import type { LocalSettings } from './connection/local-settings.ts'
import type { Driver } from './drivers/driver.ts'
import type { PipelineMode } from './flush/pipeline-mode.ts'
import type { FlushHooks } from './hooks/flush-hooks.ts'
import type { IdAllocator } from './ids/id-allocator.ts'
import type { SchemaModel } from './model/model.ts'
import type { Observe } from './observe/observe-flush.ts'
import type { ServerValuesPolicy } from './plan/statements/returning.ts'
import type { ReplicaSet } from './read/replicas.ts'
import type { CatalogSchema } from './schema/cached-schema.ts'

/**
 * Everything an entity manager runs with, each setting declared here only: what its client's entity
 * managers share (made once by `EntityManager.connect`: {@link ClientSettings}) and what each entity
 * manager may set for itself (its options, changed by a fork's: {@link ManagerSettings}). The flush
 * and the reads take the parts they use (`Pick<Settings, ...>`).
 */
export interface Settings {
  /** The application's client (postgres.js or a `pg.Pool`), behind its adapter. */
  readonly driver: Driver
  /** The tables, columns, keys and relations pipeflush writes and reads with. */
  readonly schema: SchemaModel
  /** The id pool of the client, shared by all its entity managers. */
  readonly ids: IdAllocator
  /**
   * Name pipelined statements (prepared once per connection): no transaction pooler in between, or
   * the application said so (`prepare: true`). A tick's reads are then pipelined with their own Syncs;
   * else they go as one simple-protocol message.
   */
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
  /** The catalog `schema` was read from, and read again from (undefined: a schema declared in code). */
  readonly catalog: ClientCatalog | undefined
  /** How a flush is sent (see `flush/modes.ts`). */
  readonly mode: PipelineMode
  /** A flush (or a read) settles within this many milliseconds, reserving a connection included (Infinity: no limit). */
  readonly timeoutMs: number
  /** Put the values errors are about in their messages (the `errorValues` option). */
  readonly errorValues: boolean
  /** Spans and logs (the `tracing` and `logger` options). */
  readonly observe: Observe
  /** The read replicas, if any (the `replicas` option). */
  readonly replicas: ReplicaSet | undefined
  /** Configuration parameters set in every flush's and read's transaction (the `localSettings` option). */
  readonly localSettings: LocalSettings
}

/** The settings an entity manager's client shares with all its entity managers, made once at connect. */
export type ClientSettings = Pick<
  Settings,
  | 'driver'
  | 'schema'
  | 'ids'
  | 'named'
  | 'preparedBurst'
  | 'flushLog'
  | 'serverValues'
  | 'copyRows'
  | 'hooks'
  | 'catalog'
>

/**
 * A client's schema read from the catalog: where later reads of it come from, and the client's
 * settings with one of them (the options that name tables checked against it again).
 */
export interface ClientCatalog {
  readonly source: CatalogSchema
  /**
   * The client's settings with `schema`, a later read of the catalog, in place of the schema they were
   * made with; the same settings when options that name tables do not hold in it (a hook's table
   * gone): its entity managers keep the schema they had until the options are fixed.
   */
  settingsFor(schema: SchemaModel): ClientSettings
}

/** The settings of one entity manager, from its options (a fork's over its parent's). */
export type ManagerSettings = Omit<Settings, keyof ClientSettings>
