import { MAX_TIMER_MS } from './drivers/deadline-alarm.ts'
import { errors } from './errors.ts'
import type { PipelineMode } from './flush/pipeline-mode.ts'
import type { FlushHooks } from './hooks/flush-hooks.ts'
import type { SchemaModel, TableModel } from './model/model.ts'
import type { Logger } from './observe/logger.ts'
import { loggerOption } from './observe/logger.ts'
import type { Observe } from './observe/observe-flush.ts'
import type { ServerValuesPolicy } from './plan/statements/returning.ts'
import type { ReadSchemaOptions } from './schema/read-schema-options.ts'
import type { Entity } from './track/entity-state.ts'
import { describeValue } from './values/location.ts'

export { readSchemaOption } from './schema/read-schema-options.ts'

/**
 * Options of `EntityManager.connect`; `M` is the entity manager its hooks are given (the package's
 * index names it: this module does not point up at the facade).
 */
export interface EntityManagerOptions<M = unknown> extends ReadSchemaOptions {
  /** How flushes are sent (default `burst`). */
  readonly pipeline?: PipelineMode | undefined
  /**
   * A schema declared in code (see `defineSchema`), or one read before; when given, pg_catalog is
   * not read, and a `versionColumn` or `relationNames` saying otherwise than the schema is refused
   * (`defineSchema` takes them).
   */
  readonly schema?: SchemaModel | undefined
  /**
   * Ids fetched per sequence at least, each time the pool runs short (default 50). A sequence that keeps
   * running short fetches twice as many each time, up to 16 times this; the same query tops up every
   * other sequence of the pool for as long as the fetched ones last (in proportion to its use, up to
   * 16 times this), so that tables used at different paces do not run short one after the other. A
   * process that ends leaves at most that many of each sequence's ids unused (gaps, as a rolled-back
   * `nextval` leaves). A sequence with fewer values left than asked (near its MAXVALUE) gives only
   * the ids a flush needs, and none at connect.
   */
  readonly idBlockSize?: number | undefined
  /**
   * Fill the id pool at connect for every sequence key of the schema (one query), so that the first
   * flushes fetch no ids. Default: when the schema is read from the catalog (connect queries anyway);
   * not for a schema declared in code, which connects without any query unless this is `true`.
   */
  readonly prefetchIds?: boolean | undefined
  /**
   * A flush settles within this many milliseconds, reserving a connection included (default 30000;
   * `Infinity` for no limit). Past it the flush's connection is terminated (the server rolls back what
   * did not reach its COMMIT; the pool opens a new connection) and the flush fails with
   * `FLUSH_TIMEOUT`, or `COMMIT_OUTCOME_UNKNOWN` if its COMMIT had been sent. Reads through the entity
   * manager (`find`, `load`, `wasCommitted`) settle within it too (`QUERY_TIMEOUT`).
   */
  readonly flushTimeoutMs?: number | undefined
  /**
   * Opt-in flush log: a table (`name` or `schema.name`) where each flush inserts its id inside its own
   * transaction, with its first statements (no extra round trip), so that `em.wasCommitted(flushId)`
   * can tell whether a flush that failed with `COMMIT_OUTCOME_UNKNOWN` committed. Checked at connect;
   * `flushLogDdl(name)` gives the DDL.
   */
  readonly flushLog?: string | undefined
  /**
   * node-postgres pools in `pipeline` mode: whether pipelined statements are named (prepared once per
   * connection). Left out: named, unless a connection pooler is found in between (PgBouncer before 1.21
   * and Supavisor in transaction mode lose named statements between transactions), then unnamed; a
   * `burst` is then one simple-protocol message (its statements' parameters written as literals),
   * which measured faster than named statements on a realistic mix (one answer instead of one per
   * statement, about a third less client CPU) at the cost of the server parsing and planning every
   * statement of every burst. `true`: named without the check (direct connections, session pooling,
   * PgBouncer >= 1.21 with `max_prepared_statements`), a `burst` included: each of its statements is
   * parsed once per connection. `false`: never named. A tick's reads are pipelined (named) only
   * where statements are named; else they go as one simple-protocol message, because a transaction
   * pooler hands the server connection on at each ReadyForQuery outside a transaction, and the
   * answers to pipelined selects after the first would reach another client. Without effect on
   * postgres.js clients, whose flushes and reads are never prepared.
   */
  readonly prepare?: boolean | undefined
  /**
   * Whether flushes read back the values the server fills, in the answer they wait for anyway (no
   * round trip): after a flush, an inserted entity's columns it did not supply (defaults such as
   * `now()`, identity and serial columns, generated columns) and an updated entity's generated columns
   * hold what the database stored. Default `true`; `false` for none; an object turns tables off (or on)
   * by table key, e.g. `{ reading: false }`: each such insert then sends the same statement without
   * `returning`, and the server sends back nothing for its rows. An upsert into a table it selects
   * returns its rows as stored (every column: its entity is managed after the flush); into one it does
   * not, nothing (as bulk ingestion wants: its entity is detached after the flush).
   */
  readonly serverValues?: boolean | Readonly<Record<string, boolean>> | undefined
  /** Code run as part of every flush (see {@link FlushHooks}). */
  readonly hooks?: FlushHooks<Entity, M> | undefined
  /**
   * Inserts of at least this many rows into one table are sent as `COPY ... FROM STDIN` instead of
   * INSERT, in the same message and transaction: the server stores them about twice as fast.
   * node-postgres writes the data with the message (no extra round trip); postgres.js writes it when
   * the server asks (one round trip more per COPY). Default 1,000; `Infinity`: never. Only plain
   * inserts that return nothing (not upserts, not tables whose server-filled values are read back: see
   * `serverValues`), never into a table with row-level security or rewrite rules.
   */
  readonly copyRows?: number | undefined
  /**
   * Put the values an error is about in its message: the value at fault (`INVALID_VALUE`), the
   * server's DETAIL (a unique violation's key), the server's message where it quotes a value. Default
   * `false`: messages and stacks go to logs and error trackers, so they show no value the application
   * wrote (each stays on the error: `error.value`, `error.detail`, `error.cause`). For development.
   */
  readonly errorValues?: boolean | undefined
  /**
   * OpenTelemetry spans, when the application has `@opentelemetry/api` and registered a tracer
   * provider (otherwise nothing is recorded, and next to nothing spent): a CLIENT span per flush and
   * per read batch, following OpenTelemetry's database conventions, the driver's own spans
   * (instrumentation-pg) nested in it. `{ statements: true }` adds the statement texts, without
   * values (`db.query.text`); `false` records no span at all.
   */
  readonly tracing?: boolean | { readonly statements?: boolean } | undefined
  /** Where to log flushes and reads (pino's shape; see `Logger`). Off by default. */
  readonly logger?: Logger | undefined
  /**
   * Read replicas: pools of the same kinds the primary's may be (postgres.js clients, `pg.Pool`s),
   * each of a streaming replica of the primary (the client given first). The reads of a unit of work
   * that has not flushed go to a replica, in turn; once it flushed, its reads go to the primary (it
   * reads its own writes, at no extra round trip). Flushes, and the flush log, always go to the
   * primary. A replica whose read failed is left out for 5 s (then tried again), and one whose replay
   * lag, measured in the same message as every batch it answers, is beyond `maxReplicaLagMs`; the
   * reason shows in `em.replicas` and in the read's span.
   */
  readonly replicas?: readonly unknown[] | undefined
  /** The replay lag (ms) beyond which a replica is left out (default: no bound). */
  readonly maxReplicaLagMs?: number | undefined
}

/** Options of `em.fork()`. */
export interface ForkOptions {
  readonly pipeline?: PipelineMode | undefined
  readonly flushTimeoutMs?: number | undefined
  /**
   * Configuration parameters set in the transaction of every flush and read batch of the fork, over
   * its parent's (a name given again takes the fork's value): see `EntityManagerOptions.localSettings`.
   *
   * @example
   * const em = root.fork({ localSettings: { 'request.jwt.claims': JSON.stringify(claims) } })
   */
  readonly localSettings?: Readonly<Record<string, string | number | boolean>> | undefined
}

const DEFAULT_FLUSH_TIMEOUT_MS = 30_000
const DEFAULT_ID_BLOCK_SIZE = 50
const MODES: readonly PipelineMode[] = ['off', 'waves', 'burst']

/**
 * The pipeline mode, checked (default `burst`).
 *
 * A bad value is `INVALID_CONFIG` before any query, not a failure in the middle of a flush.
 */
export function pipelineOption(mode: unknown): PipelineMode {
  if (mode === undefined) return 'burst'
  if (!MODES.includes(mode as PipelineMode)) {
    throw errors.invalidConfig(`pipeline must be 'off', 'waves' or 'burst', not ${describeValue(mode)}.`)
  }
  return mode as PipelineMode
}

/**
 * The flush timeout in milliseconds, checked (default 30000; Infinity allowed). One longer than a
 * timer can wait ({@link MAX_TIMER_MS}) is no timeout: Infinity.
 *
 * A bad value is `INVALID_CONFIG` before any query, not a failure in the middle of a flush.
 */
export function flushTimeoutOption(ms: unknown): number {
  if (ms === undefined) return DEFAULT_FLUSH_TIMEOUT_MS
  if (typeof ms !== 'number' || Number.isNaN(ms) || ms <= 0) {
    throw errors.invalidConfig(
      `flushTimeoutMs must be a positive number of milliseconds (or Infinity), not ${describeValue(ms)}.`,
    )
  }
  return ms > MAX_TIMER_MS ? Number.POSITIVE_INFINITY : ms
}

/**
 * The id block size, checked (default 50).
 *
 * A bad value is `INVALID_CONFIG` before any query, not a failure in the middle of a flush.
 */
export function idBlockSizeOption(size: unknown): number {
  if (size === undefined) return DEFAULT_ID_BLOCK_SIZE
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 1) {
    throw errors.invalidConfig(`idBlockSize must be a positive integer, not ${describeValue(size)}.`)
  }
  return size
}

/** Inserts of at least this many rows go as COPY, unless `copyRows` says otherwise. */
export const DEFAULT_COPY_ROWS = 1_000

/**
 * The `copyRows` option, checked (default {@link DEFAULT_COPY_ROWS}).
 *
 * A bad value is `INVALID_CONFIG` before any query, not a failure in the middle of a flush.
 */
export function copyRowsOption(rows: unknown): number {
  if (rows === undefined) return DEFAULT_COPY_ROWS
  if (rows === Number.POSITIVE_INFINITY) return rows
  if (typeof rows !== 'number' || !Number.isSafeInteger(rows) || rows < 1) {
    throw errors.invalidConfig(`copyRows must be a positive integer or Infinity, not ${describeValue(rows)}.`)
  }
  return rows
}

/**
 * The `prepare` option, checked.
 *
 * A bad value is `INVALID_CONFIG` before any query, not a failure in the middle of a flush.
 */
export function prepareOption(prepare: unknown): boolean | undefined {
  if (prepare === undefined || prepare === true || prepare === false) return prepare
  throw errors.invalidConfig(`prepare must be true, false or left out, not ${describeValue(prepare)}.`)
}

/** The `prefetchIds` option, checked: a boolean or left out. */
export function prefetchIdsOption(prefetch: unknown): boolean | undefined {
  if (prefetch === undefined || prefetch === true || prefetch === false) return prefetch
  throw errors.invalidConfig(`prefetchIds must be true, false or left out, not ${describeValue(prefetch)}.`)
}

/**
 * The `serverValues` option as a policy, checked (against the schema when given: an object names
 * tables of it).
 *
 * A bad value is `INVALID_CONFIG` before any query, not a failure in the middle of a flush.
 */
export function serverValuesOption(value: unknown, schema: SchemaModel | undefined): ServerValuesPolicy {
  // A table the role may not SELECT from reads nothing back: RETURNING would fail its inserts.
  if (value === undefined || value === true) return readable
  if (value === false) return () => false
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw errors.invalidConfig(
      `serverValues must be true, false or an object of booleans by table, not ${describeValue(value)}.`,
    )
  }
  const byTable = new Map<string, boolean>()
  for (const [table, on] of Object.entries(value)) {
    if (typeof on !== 'boolean') {
      throw errors.invalidConfig(`serverValues.${table} must be true or false, not ${describeValue(on)}.`)
    }
    if (schema !== undefined && !schema.tables.has(table)) {
      throw errors.invalidConfig(`serverValues names "${table}", which is not a table of the schema.`)
    }
    byTable.set(table, on)
  }
  return (table: TableModel) => (byTable.get(table.key) ?? true) && readable(table)
}

/** Whether the role may read back what the server filled in `table` (see `TableModel.selectDenied`). */
const readable = (table: TableModel): boolean => table.selectDenied !== true

/**
 * The `tracing` and `logger` options, checked.
 *
 * A bad value is `INVALID_CONFIG` before any query, not a failure in the middle of a flush.
 */
export function observeOption(tracing: unknown, logger: unknown): Observe {
  if (tracing !== undefined && typeof tracing !== 'boolean') {
    const statements = (tracing as { statements?: unknown } | null)?.statements
    if (
      typeof tracing !== 'object' ||
      tracing === null ||
      (statements !== undefined && typeof statements !== 'boolean')
    )
      throw errors.invalidConfig(
        `tracing must be true, false or { statements: boolean }, not ${describeValue(tracing)}.`,
      )
  }
  return {
    logger: loggerOption(logger),
    noSpans: tracing === false,
    statementTexts: (tracing as { statements?: unknown } | null)?.statements === true,
  }
}

/**
 * The `maxReplicaLagMs` option, checked: a number of milliseconds >= 0 (default Infinity).
 *
 * A bad value is `INVALID_CONFIG` before any query, not a failure in the middle of a flush.
 */
export function maxReplicaLagOption(value: unknown): number {
  if (value === undefined) return Number.POSITIVE_INFINITY
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0)
    throw errors.invalidConfig(
      `maxReplicaLagMs must be a number of milliseconds >= 0, not ${describeValue(value)}.`,
    )
  return value
}
