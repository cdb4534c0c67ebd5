import {
  EntityManager,
  type EntityManagerOptions,
  type FlushReport,
  type ForkOptions,
  isPipeflushError,
  type PipelineMode,
  type SchemaModel,
} from '@pipeflush/core'
import type { PgColumn, PgDatabase } from 'drizzle-orm/pg-core'
import { ClientDefaults } from './defaults.ts'
import { DrizzleEntityManager, type ManagerContext } from './entity-manager.ts'
import { errors } from './errors.ts'
import { buildSchema } from './schema/build-schema.ts'
import { checkCatalog } from './schema/check-catalog.ts'
import { searchPathSchemas } from './schema/search-path.ts'
import { type SchemaTable, SchemaTables, unqualifiedNames } from './schema/tables.ts'
import { coreHooks, type TypedFlushHooks } from './typed-hooks.ts'
import type { ColumnKey, TableAt, TableKey } from './types.ts'

// biome-ignore lint/suspicious/noExplicitAny: any Drizzle database of pg-core, whatever its driver
type AnyDatabase = PgDatabase<any, any>

/** The schema object a Drizzle database was made with (`drizzle(client, { schema })`). */
export type SchemaOf<D> = D extends PgDatabase<infer _, infer S> ? S : never

/**
 * Options of {@link createEntityManagerFactory}: the application's Drizzle database (and, when it was
 * made without one, its schema object), plus `@pipeflush/core`'s options.
 */
export interface EntityManagerFactoryOptions<D extends AnyDatabase, S>
  extends Omit<EntityManagerOptions, 'hooks' | 'schema' | 'schemas' | 'versionColumn' | 'relationNames'> {
  /**
   * The application's Drizzle database of `drizzle-orm/node-postgres` or `drizzle-orm/postgres-js`.
   * Its client (`db.$client`: the `pg.Pool` or postgres.js client it was given, or made from a URL) is
   * the one every flush and read uses, and its `casing` names the columns declared without a name.
   */
  readonly db: D
  /**
   * The schema object (tables, `relations()`, enums...), when the database was made without one.
   * Default: the database's (`drizzle(client, { schema })`).
   */
  readonly schema?: S | undefined
  /**
   * The pool, when it is not the database's own client (`db.$client`): a `pg.Pool` (pg >= 8.23;
   * `pipeline: true` for pipelined, prepared flushes) or a postgres.js client, on the same database.
   * A database made on a single `pg.Client` needs one: pipeflush takes connections from a pool.
   */
  readonly client?: unknown | undefined
  /**
   * Optimistic locking: the version column's property, for every table that has it (`'version'`),
   * or by table key (`{ books: 'version' }`). An integer, NOT NULL; incremented by every flush that
   * updates the row, checked in the same statement (`OPTIMISTIC_LOCK`). A create leaving it out
   * writes 1; declared without a default (`.default(1)`), `create`'s type requires it.
   */
  readonly version?: VersionOption<S>
  /**
   * The same as {@link version}, under the name `@pipeflush/core` and `@pipeflush/kysely` give it
   * (here too by property, not column name). Give one of the two.
   */
  readonly versionColumn?: VersionOption<S>
  /**
   * Read the catalog once at start and compare it with the definitions: a table or column missing,
   * another type, nullability or primary key is `SCHEMA_MISMATCH` naming table and column. Default
   * false: the schema comes from the definitions alone, no query.
   */
  readonly checkDatabase?: boolean | undefined
  /** Code run as part of every flush, typed by the schema (see {@link TypedFlushHooks}). */
  readonly hooks?: TypedFlushHooks<NoInfer<S>> | undefined
}

/** The `version` option: a property name for every table that has it, or property names by table key. */
export type VersionOption<S> =
  | string
  | { readonly [K in TableKey<NoInfer<S>>]?: ColumnKey<TableAt<NoInfer<S>, K>> }
  | undefined

/** The names of {@link RunOptions}. */
const RUN_OPTIONS: readonly string[] = ['pipeline', 'flushTimeoutMs', 'localSettings', 'retries', 'backoffMs']

/** Options of one {@link EntityManagerFactory.run}. */
export interface RunOptions {
  /** Pipeline mode of this run's flush (default: the factory's). */
  readonly pipeline?: PipelineMode | undefined
  /** `flushTimeoutMs` of this run's reads and flush (default: the factory's). */
  readonly flushTimeoutMs?: number | undefined
  /**
   * Configuration parameters set in this run's flush and read transactions (`SET LOCAL`: a tenant's id,
   * a role, for row-level security), over the factory's: see core's `localSettings`.
   */
  readonly localSettings?: ForkOptions['localSettings']
  /**
   * How many times to run the work again, each time on a fresh entity manager, when the flush fails
   * on a conflict with another transaction: `OPTIMISTIC_LOCK`, or a deadlock or serialization failure
   * (SQLSTATE `40P01`, `40001`). Default 0: the error is thrown.
   */
  readonly retries?: number | undefined
  /** Before a retry, wait a random time between 0 and `backoffMs * 2^(attempt - 1)` ms (default 0). */
  readonly backoffMs?: number | undefined
}

/** What {@link EntityManagerFactory.run} returns. */
export interface RunResult<R> {
  /** What the work returned (from the attempt that committed). */
  readonly result: R
  /** The flush report of the attempt that committed. */
  readonly report: FlushReport
  /** 1, or more when conflicts were retried. */
  readonly attempts: number
}

/**
 * Hands out request-scoped entity managers over the application's Drizzle tables. The schema comes
 * from the definitions once (by {@link createEntityManagerFactory}); `fork()` and `run()` cost no
 * query.
 */
export class EntityManagerFactory<S> {
  /** The application's Drizzle database, on the same pool as the flushes. */
  readonly db: AnyDatabase
  readonly #root: EntityManager
  readonly #context: ManagerContext
  /** The entity manager of each core one handed out (what the hooks are given). */
  readonly #typed = new WeakMap<EntityManager, DrizzleEntityManager<S>>()

  /** @internal Use {@link createEntityManagerFactory}. */
  constructor(root: EntityManager, db: AnyDatabase, context: ManagerContext) {
    this.#root = root
    this.db = db
    this.#context = context
  }

  /**
   * The schema pipeflush writes with, made from the definitions: tables by their key in the schema
   * object, columns by property (`dbName` their names in the database), keys, foreign keys,
   * relations.
   */
  get schema(): SchemaModel {
    return this.#root.schema
  }

  /** @internal The entity manager over `core` (the one `fork()` handed out, or a new one). */
  typedOf(core: EntityManager): DrizzleEntityManager<S> {
    let typed = this.#typed.get(core)
    if (typed === undefined) {
      typed = new DrizzleEntityManager<S>(core, this.#context)
      this.#typed.set(core, typed)
    }
    return typed
  }

  /**
   * A new, empty unit of work (its own identity map), for one request.
   *
   * @example
   * const em = factory.fork()
   */
  fork(options: ForkOptions = {}): DrizzleEntityManager<S> {
    return this.typedOf(this.#root.fork(options))
  }

  /**
   * Runs one request's work on a fresh entity manager and flushes at the end; returns what the work
   * returned and the flush report. Nothing is written if the work throws, and the entity manager is
   * cleared (a locking read's locks released). With `retries`, a conflict of the work's reads or of
   * the flush runs the work again on a new entity manager (so it reloads).
   *
   * @example
   * const { result: book, report } = await factory.run(async (em) => {
   *   const book = await em.load(books, id)
   *   book.title = title
   *   return book
   * })
   */
  async run<Result>(
    work: (em: DrizzleEntityManager<S>) => Promise<Result> | Result,
    options: RunOptions = {},
  ): Promise<RunResult<Result>> {
    if (typeof work !== 'function') throw errors.invalidConfig('run: the work must be a function')
    if (typeof options !== 'object' || options === null)
      throw errors.invalidConfig('run: the options must be an object')
    // A misspelled option would be dropped without a word (`retry: 3`: a conflict not retried).
    for (const name of Object.keys(options))
      if (!RUN_OPTIONS.includes(name))
        throw errors.invalidConfig(`run: unknown option "${name}"; the options are ${RUN_OPTIONS.join(', ')}`)
    const retries = options.retries ?? 0
    if (!Number.isSafeInteger(retries) || retries < 0)
      throw errors.invalidConfig('run: retries must be an integer >= 0')
    const backoffMs = options.backoffMs ?? 0
    if (typeof backoffMs !== 'number' || !Number.isFinite(backoffMs) || backoffMs < 0) {
      throw errors.invalidConfig('run: backoffMs must be a finite number of milliseconds >= 0')
    }
    for (let attempt = 1; ; attempt++) {
      const em = this.fork({
        pipeline: options.pipeline,
        flushTimeoutMs: options.flushTimeoutMs,
        localSettings: options.localSettings,
      })
      try {
        const result = await work(em)
        const report = await em.flush()
        return { result, report, attempts: attempt }
      } catch (e) {
        // The unit is given up: a locking read's transaction ends, its locks and connection with it.
        await em.clear().catch(() => {})
        if (attempt > retries || !isConflict(e)) throw e
        const backoff = backoffMs * 2 ** (attempt - 1)
        if (backoff > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * backoff))
      }
    }
  }
}

/**
 * The factory of entity managers over the application's Drizzle database and table definitions. The
 * schema comes from the definitions (`getTableConfig`: columns, types, keys, foreign keys, uniques,
 * defaults, identity and serial columns, enums, `pgSchema` tables; `relations()` for relation
 * names): no catalog read, unless `checkDatabase` asks for one. Flushes and reads use the
 * database's own pool (`db.$client`, or `client`).
 *
 * @example
 * import { drizzle } from 'drizzle-orm/node-postgres'
 * import pg from 'pg'
 * import * as schema from './schema.ts'
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, pipeline: true })
 * const db = drizzle(pool, { schema })
 * const factory = await createEntityManagerFactory({ db, version: { books: 'version' } })
 * const { report } = await factory.run((em) => {
 *   const ada = em.create(schema.authors, { name: 'Ada' })
 *   em.create(schema.books, { title: 'Notes', authorId: ada })
 * })
 */
export async function createEntityManagerFactory<D extends AnyDatabase>(
  options: EntityManagerFactoryOptions<D, SchemaOf<D>> & { readonly schema?: undefined },
): Promise<EntityManagerFactory<SchemaOf<D>>>
/**
 * {@link createEntityManagerFactory} with the schema object given, for a database made without one
 * (typed by it, also when the value given may be undefined: then the database's at run time).
 *
 * @example
 * import { drizzle } from 'drizzle-orm/node-postgres'
 * import pg from 'pg'
 * import * as schema from './schema.ts'
 *
 * const db = drizzle(new pg.Pool({ connectionString: process.env.DATABASE_URL }))
 * const factory = await createEntityManagerFactory({ db, schema })
 */
export async function createEntityManagerFactory<D extends AnyDatabase, S = SchemaOf<D>>(
  options: EntityManagerFactoryOptions<D, S> & { readonly schema: S | undefined },
): Promise<EntityManagerFactory<S>>
export async function createEntityManagerFactory<D extends AnyDatabase, S>(
  options: EntityManagerFactoryOptions<D, S>,
): Promise<EntityManagerFactory<S>> {
  if (typeof options !== 'object' || options === null) {
    throw errors.invalidConfig('createEntityManagerFactory: the options must be an object ({ db })')
  }
  const { db, schema: given, client: explicit, checkDatabase, hooks, ...named } = options
  const { version: _version, versionColumn: _versionColumn, ...rest } = named
  const version = versionOption(options)
  const internals = db as unknown as DatabaseInternals | null
  if (typeof internals !== 'object' || internals === null || typeof internals.select !== 'function') {
    throw errors.invalidConfig(
      'createEntityManagerFactory: db must be a Drizzle database of drizzle-orm/pg-core',
    )
  }
  const schema = (given ?? internals._?.fullSchema) as Readonly<Record<string, unknown>> | undefined
  if (typeof schema !== 'object' || schema === null || Object.keys(schema).length === 0) {
    throw errors.invalidConfig(
      'createEntityManagerFactory: no schema: make the database with drizzle(client, { schema }) or give `schema`',
    )
  }
  const client = explicit ?? internals.$client
  const casing = internals.dialect?.casing
  const dbName = (column: PgColumn) => casing?.getColumnCasing(column) ?? column.name
  const versions = (tables: SchemaTables) => versionOf(version, tables)
  const connect = (model: SchemaModel, more: Partial<EntityManagerOptions>) =>
    EntityManager.connect(client, { ...rest, ...more, schema: model }).catch((e: unknown) => {
      // The database's own client is not one pipeflush takes (a pg.Client): name the option that gives one.
      if (
        explicit === undefined &&
        isPipeflushError(e, 'INVALID_CONFIG') &&
        /is not a client/.test(e.message)
      )
        throw errors.invalidConfig(
          `createEntityManagerFactory: the database's own client (db.$client) cannot be used: ${e.message} Give the factory the pool as \`client\`: createEntityManagerFactory({ db, client: pool })`,
        )
      throw e
    })
  let tables = new SchemaTables(schema)
  let built = buildSchema(schema, tables, dbName, versions(tables))
  // Tables of \`pgTable\` are in the schema the application's search path finds them in, as Drizzle's
  // unqualified SQL is (one query): with \`public\` taken for granted, a pool whose search path is a
  // tenant's read its rows with Drizzle and wrote public's with pipeflush.
  const unqualified = unqualifiedNames(schema)
  if (unqualified.length > 0) {
    const probe = await connect(built.model, { prefetchIds: false, hooks: undefined })
    const found = await searchPathSchemas(probe, unqualified)
    if ([...found.values()].some((s) => s !== 'public')) {
      tables = new SchemaTables(schema, found)
      built = buildSchema(schema, tables, dbName, versions(tables))
    }
  }
  if (checkDatabase === true) await checkCatalog(client, built.model)
  const defaults = new ClientDefaults(tables)
  const context: ManagerContext = { tables, defaults, untracked: built.untracked }
  let factory: EntityManagerFactory<S> | undefined
  const typed = (em: EntityManager) => factory!.typedOf(em)
  const core = coreHooks(hooks, defaults.onUpdate, typed)
  // The schema comes from the definitions, without a catalog read: the ids are fetched at start all
  // the same (one query), so that the first flushes fetch none. An option given as undefined takes
  // this default too.
  const root = await connect(built.model, {
    prefetchIds: rest.prefetchIds ?? true,
    ...(core === undefined ? {} : { hooks: core }),
  })
  factory = new EntityManagerFactory<S>(root, db, context)
  return factory
}

/** What the factory reads of a Drizzle database beyond its public API. */
interface DatabaseInternals {
  readonly select?: unknown | undefined
  readonly $client?: unknown | undefined
  readonly _?: { readonly fullSchema?: unknown } | undefined
  readonly dialect?: { readonly casing?: { getColumnCasing(column: PgColumn): string } } | undefined
}

/**
 * The `version` option, given as `version` or as `versionColumn` (the name core's and Kysely's
 * options give it); both given, and different, is `INVALID_CONFIG`.
 */
function versionOption(options: { readonly version?: unknown; readonly versionColumn?: unknown }): unknown {
  const { version, versionColumn } = options
  if (versionColumn === undefined) return version
  if (version !== undefined && JSON.stringify(version) !== JSON.stringify(versionColumn))
    throw errors.invalidConfig(
      'createEntityManagerFactory: give the version column as `version` or as `versionColumn`, not both',
    )
  return versionColumn
}

/** The version column of each table, from the `version` option. */
function versionOf(version: unknown, tables: SchemaTables): (table: SchemaTable) => string | undefined {
  if (version === undefined) return () => undefined
  if (typeof version === 'string' && version !== '') {
    return (table) => (table.columns.has(version) ? version : undefined)
  }
  if (typeof version !== 'object' || version === null || Array.isArray(version)) {
    throw errors.invalidConfig('version must be a property name or an object of property names by table key')
  }
  for (const [key, property] of Object.entries(version)) {
    const table = tables.byKey(key)
    if (table === undefined)
      throw errors.invalidConfig(`version names "${key}", which is not a table of the schema`, key)
    if (typeof property !== 'string' || !table.columns.has(property)) {
      throw errors.invalidConfig(`version: ${key} has no property "${String(property)}"`, key)
    }
  }
  const byKey = version as Readonly<Record<string, string>>
  return (table) => byKey[table.key]
}

/** SQLSTATEs of a transaction the server rolled back for a conflict, to be retried: deadlock, serialization. */
const RETRYABLE_SQLSTATES: ReadonlySet<string> = new Set(['40P01', '40001'])

function isConflict(e: unknown): boolean {
  return (
    isPipeflushError(e, 'OPTIMISTIC_LOCK') ||
    (isPipeflushError(e) && e.sqlState !== undefined && RETRYABLE_SQLSTATES.has(e.sqlState))
  )
}
