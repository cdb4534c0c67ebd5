import {
  EntityManager,
  type EntityManagerOptions,
  type FlushReport,
  type ForkOptions,
  isPipeflushError,
  type PipelineMode,
  type SchemaModel,
} from '@pipeflush/core'
import { Kysely, PostgresDialect } from 'kysely'
import { PostgresJSDialect } from 'kysely-postgres-js'
import { errors } from './errors.ts'
import { camelCaseOf } from './names/camel-case.ts'
import type { NoRelations } from './relations.ts'
import { TypedEntityManager } from './typed-entity-manager.ts'
import { coreHooks, type TypedFlushHooks } from './typed-hooks.ts'

/**
 * Options of {@link createEntityManagerFactory}: the application's pool (and its Kysely instance),
 * plus `@pipeflush/core`'s options.
 */
export interface EntityManagerFactoryOptions<DB> extends Omit<EntityManagerOptions, 'hooks'> {
  /**
   * The application's pool, as it was created: a postgres.js client (`postgres(url)`) or a
   * node-postgres `pg.Pool` (in `pipeline` mode for prepared, pipelined flushes). Every flush and
   * read of every entity manager uses it: no second pool.
   */
  readonly client: unknown
  /**
   * The application's Kysely instance over the same pool (a `PostgresDialect` on the `pg.Pool`, or a
   * `PostgresJSDialect` on the postgres.js client), for reads. Default: one made on `client`.
   */
  readonly db?: Kysely<DB> | undefined
  /** Code run as part of every flush, typed by `DB` (see {@link TypedFlushHooks}). */
  readonly hooks?: TypedFlushHooks<DB> | undefined
}

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
   * the server reported (SQLSTATE `40P01`, `40001`; PostgreSQL rolls such a transaction back and says to
   * retry it). Default 0: the error is thrown.
   */
  readonly retries?: number | undefined
  /**
   * Before a retry, wait a random time between 0 and `backoffMs * 2^(attempt - 1)` ms (default 0), so
   * that transfers that collided do not collide again at once.
   */
  readonly backoffMs?: number | undefined
}

/** What {@link EntityManagerFactory.run} returns. */
export interface RunResult<R> {
  /** What the work returned (from the attempt that committed). */
  readonly result: R
  /** The flush report of the attempt that committed. */
  readonly report: FlushReport
  /** 1, or more when optimistic-lock failures were retried. */
  readonly attempts: number
}

/**
 * Hands out request-scoped entity managers typed by `DB`. The schema is read from pg_catalog once
 * (by {@link createEntityManagerFactory}); `em()` and `run()` cost no query.
 */
export class EntityManagerFactory<DB, R = NoRelations> {
  /** The Kysely instance for reads, on the same pool as the flushes. */
  readonly db: Kysely<DB>
  readonly #root: EntityManager
  /** The typed entity manager of each core one it handed out (what the hooks are given). */
  readonly #typed = new WeakMap<EntityManager, TypedEntityManager<DB, R>>()

  /** @internal Use {@link createEntityManagerFactory}. */
  constructor(root: EntityManager, db: Kysely<DB>) {
    this.#root = root
    this.db = db
  }

  /**
   * The schema read at connect (tables, keys, foreign keys): what `relationsTypeSource` writes the
   * relations type from.
   */
  get schema(): SchemaModel {
    return this.#root.schema
  }

  /** @internal The typed entity manager over `core` (the one `em()` handed out, or a new one). */
  typedOf(core: EntityManager): TypedEntityManager<DB, R> {
    let typed = this.#typed.get(core)
    if (typed === undefined) {
      typed = new TypedEntityManager<DB, R>(core, this.db)
      this.#typed.set(core, typed)
    }
    return typed
  }

  /**
   * A new, empty unit of work (its own identity map), for one request.
   *
   * @example
   * const em = factory.em()
   */
  em(options: ForkOptions = {}): TypedEntityManager<DB, R> {
    return this.typedOf(this.#root.fork(options))
  }

  /**
   * {@link em}, by the name core's root and `@pipeflush/drizzle`'s factory give it.
   *
   * @example
   * const em = factory.fork()
   */
  fork(options: ForkOptions = {}): TypedEntityManager<DB, R> {
    return this.em(options)
  }

  /**
   * Runs one request's work on a fresh entity manager and flushes at the end; returns what the work
   * returned and the flush report. Nothing is written if the work throws, and the entity manager is
   * cleared (a locking read's locks released). With `retries`, a conflict of the work's reads or of
   * the flush (`OPTIMISTIC_LOCK`, a deadlock, a serialization failure) runs the work again on a new
   * entity manager (so it reloads).
   *
   * @example
   * const { result: book, report } = await factory.run(async (em) => {
   *   const book = await em.load('book', id)
   *   book.title = title
   *   return book
   * })
   */
  async run<Result>(
    work: (em: TypedEntityManager<DB, R>) => Promise<Result> | Result,
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
    if (!Number.isSafeInteger(retries) || retries < 0) {
      throw errors.invalidConfig('run: retries must be an integer >= 0')
    }
    const backoffMs = options.backoffMs ?? 0
    if (typeof backoffMs !== 'number' || !Number.isFinite(backoffMs) || backoffMs < 0) {
      throw errors.invalidConfig('run: backoffMs must be a finite number of milliseconds >= 0')
    }
    for (let attempt = 1; ; attempt++) {
      const em = this.em({
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
 * Reads the schema (once per client and options) and returns the factory of entity managers typed
 * by `DB`, the Kysely database interface, over the application's own pool and Kysely instance. `R`,
 * the relations (written by `relationsTypeSource`), types `with` trees and `related`.
 *
 * @example
 * import pg from 'pg'
 * import { Kysely, PostgresDialect } from 'kysely'
 * import type { DB } from './db.ts' // e.g. written by kysely-codegen
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, pipeline: true })
 * const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) })
 * const factory = await createEntityManagerFactory<DB>({ client: pool, db, versionColumn: 'version' })
 * const { report } = await factory.run((em) => {
 *   const ada = em.create('author', { name: 'Ada' })
 *   em.create('book', { title: 'Notes', author_id: ada })
 * })
 */
export async function createEntityManagerFactory<DB, R = NoRelations>(
  options: EntityManagerFactoryOptions<DB>,
): Promise<EntityManagerFactory<DB, R>> {
  if (typeof options !== 'object' || options === null) {
    throw errors.invalidConfig('createEntityManagerFactory: the options must be an object ({ client, db? })')
  }
  const { client, db, hooks, ...rest } = options
  if (client === undefined)
    throw errors.invalidConfig(
      "createEntityManagerFactory: no client: give the application's pool as `client` (a postgres.js client or a pg.Pool), with `db` its Kysely",
    )
  // Duck-typed: the application's Kysely may be another copy of the package than this one's.
  if (db !== undefined && typeof (db as { executeQuery?: unknown } | null)?.executeQuery !== 'function') {
    throw errors.invalidConfig(
      'createEntityManagerFactory: db must be a Kysely instance over the same pool as client',
    )
  }
  const names = db === undefined ? undefined : camelCaseNames(db, rest)
  let factory: EntityManagerFactory<DB, R> | undefined
  const typed = (em: EntityManager) => factory!.typedOf(em) as unknown as TypedEntityManager<DB>
  const connectOptions = names === undefined ? rest : { ...rest, names }
  const root = await EntityManager.connect(
    client,
    hooks === undefined ? connectOptions : { ...connectOptions, hooks: coreHooks(hooks, typed) },
  )
  factory = new EntityManagerFactory<DB, R>(root, db ?? kyselyOn<DB>(root.driver, client))
  return factory
}

/**
 * The names the application's Kysely gives the database's (its `CamelCasePlugin`'s `camelCase`: a
 * `DB` interface in camelCase, as `kysely-codegen --camel-case` writes it), for the schema read:
 * tables, columns and relations keyed as the application's queries name them. Undefined for a Kysely
 * without the plugin. A plugin whose mapping cannot be called, or one beside a schema given or a
 * `names` option, is `INVALID_CONFIG`.
 */
function camelCaseNames(
  db: object,
  options: { readonly schema?: unknown; readonly names?: unknown },
): ((name: string) => string) | undefined {
  const camel = camelCaseOf(db)
  if (camel === undefined) return undefined
  const refuse = (why: string) =>
    errors.invalidConfig(`createEntityManagerFactory: db uses Kysely's CamelCasePlugin, ${why}`)
  if (!camel.usable)
    throw refuse(
      "whose camelCase mapping cannot be called (not Kysely's plugin): give a Kysely instance with Kysely's own CamelCasePlugin, or without it",
    )
  if (options.schema !== undefined)
    throw refuse(
      'and a schema given (`schema`) is not read with its names: leave `schema` out (the catalog is then read and named as the plugin names it)',
    )
  if (options.names !== undefined)
    throw refuse("which names the database's tables and columns already: leave `names` out")
  const { plugin } = camel
  return (name) => plugin.camelCase(name)
}

/** A Kysely instance over the client's own pool. */
function kyselyOn<DB>(driver: 'postgres.js' | 'pg', client: unknown): Kysely<DB> {
  const dialect =
    driver === 'pg'
      ? new PostgresDialect({ pool: client as ConstructorParameters<typeof PostgresDialect>[0]['pool'] })
      : new PostgresJSDialect({
          postgres: client as ConstructorParameters<typeof PostgresJSDialect>[0]['postgres'],
        })
  return new Kysely<DB>({ dialect })
}

/** SQLSTATEs of a transaction the server rolled back for a conflict, to be retried: deadlock, serialization. */
const RETRYABLE_SQLSTATES: ReadonlySet<string> = new Set(['40P01', '40001'])

/** Whether `e` failed a flush on a conflict with another transaction, which running the work again may resolve. */
function isConflict(e: unknown): boolean {
  return (
    isPipeflushError(e, 'OPTIMISTIC_LOCK') ||
    (isPipeflushError(e) && e.sqlState !== undefined && RETRYABLE_SQLSTATES.has(e.sqlState))
  )
}
