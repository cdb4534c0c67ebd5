import { connectClient, primaryIdentity } from './connect-client.ts'
import { UnitConnections } from './connection/unit-connections.ts'
import { errors, redactError, withValuesShown } from './errors.ts'
import { committedIn, wasCommittedStatement } from './flush/flush-log.ts'
import type { FlushReport } from './flush/flush-report.ts'
import { planUnitOfWork } from './flush/flush-unit-of-work.ts'
import type { PipelineMode } from './flush/pipeline-mode.ts'
import { ManagerFlush } from './manager-flush.ts'
import { forkSettings, managerSettings, shownIf } from './manager-settings.ts'
import type { SchemaModel } from './model/model.ts'
import { loadTracing } from './observe/tracing.ts'
import type { EntityManagerOptions, ForkOptions } from './options.ts'
import type { FlushPlan } from './plan/types.ts'
import type { With } from './read/graph.ts'
import type { ReadStatement } from './read/read-batch.ts'
import { type FindOptions, type ReadOptions, UnitOfWorkReads } from './read/reads.ts'
import type { ReplicaStatus } from './read/replicas.ts'
import type { Where } from './read/select-sql.ts'
import { readableTable, writableTable } from './schema/checks.ts'
import { watchDrift } from './schema/schema-drift.ts'
import type { ClientSettings, ManagerSettings, Settings } from './settings.ts'
import type { Entity } from './track/entity-state.ts'
import { navigate } from './unit-of-work/navigate.ts'
import { mergedRow, newRow, upsertOf } from './unit-of-work/new-row.ts'
import { countOf } from './unit-of-work/relation-reads.ts'
import { UnitOfWork } from './unit-of-work/unit-of-work.ts'
import { describeKeyText } from './values/location.ts'

/**
 * A unit of work: tracks the entities it creates and loads, and writes every change in one flush,
 * pipelined inside one transaction. Create one per request with {@link EntityManager.fork}; an
 * entity manager is not meant to be shared by concurrent requests.
 *
 * @example
 * const em = await EntityManager.connect(sql, { pipeline: 'burst' }) // postgres(url) or new pg.Pool()
 * const ada = em.create('author', { name: 'Ada' })
 * em.create('book', { title: 'Notes', author_id: ada })
 * const report = await em.flush() // report.roundTrips === 1 once warm
 */
export class EntityManager {
  /** What its client shares with every entity manager of it, and its own options, in one object. */
  readonly #settings: Settings
  /** Where its flushes and reads get their connection (the pool, or its locking transaction). */
  readonly #connections: UnitConnections
  readonly #uow: UnitOfWork
  /** Its reads, made at the first (a fork per request that only writes makes none). */
  #madeReads: UnitOfWorkReads | undefined = undefined
  /** Its flushes, one at a time, with their hooks; made at the first (a fork that only reads makes none). */
  #madeFlushes: ManagerFlush | undefined = undefined

  private constructor(given: ClientSettings, own: ManagerSettings) {
    // The catalog read again since the parent was made (a table changed under the application): the
    // new unit of work uses the last read.
    const catalog = given.catalog
    const client =
      catalog === undefined || catalog.source.latest === given.schema
        ? given
        : catalog.settingsFor(catalog.source.latest)
    // Field by field, not two spreads: a fork is made per request, and is given its parent's whole
    // settings as `client`.
    const settings: Settings = {
      driver: client.driver,
      schema: client.schema,
      ids: client.ids,
      named: client.named,
      preparedBurst: client.preparedBurst,
      flushLog: client.flushLog,
      serverValues: client.serverValues,
      copyRows: client.copyRows,
      hooks: client.hooks,
      catalog: client.catalog,
      mode: own.mode,
      timeoutMs: own.timeoutMs,
      errorValues: own.errorValues,
      observe: own.observe,
      replicas: own.replicas,
      localSettings: own.localSettings,
    }
    this.#settings = settings
    this.#connections = new UnitConnections(client.driver, own.timeoutMs)
    this.#uow = new UnitOfWork((state, name) => navigate(this.#uow, client.schema, state, name))
  }

  get #reads(): UnitOfWorkReads {
    if (this.#madeReads !== undefined) return this.#madeReads
    const { schema, timeoutMs, named, observe, replicas, localSettings } = this.#settings
    this.#madeReads = new UnitOfWorkReads(this.#uow, schema, {
      timeoutMs,
      named,
      observe,
      replicas,
      localSettings,
      connections: this.#connections,
    })
    return this.#madeReads
  }

  get #flushes(): ManagerFlush {
    this.#madeFlushes ??= new ManagerFlush(this.#uow, this.#settings, this.#connections)
    return this.#madeFlushes
  }

  /**
   * An entity manager over `client`: a postgres.js `sql` or a node-postgres `pg.Pool`, used as it
   * was created (no second pool). Reads the schema from pg_catalog (once per client and options), or
   * uses `options.schema`. Bad options are `INVALID_CONFIG` before any query.
   *
   * @example
   * const em = await EntityManager.connect(postgres(url), { versionColumn: 'version' })
   * const em2 = await EntityManager.connect(new pg.Pool({ connectionString: url, pipeline: true }))
   */
  static async connect(
    client: unknown,
    options: EntityManagerOptions<EntityManager> = {},
  ): Promise<EntityManager> {
    try {
      const [context] = await Promise.all([connectClient(client, options), loadTracing()])
      const settings = managerSettings(options)
      // A replica serving another database than the primary's (a mistaken URL) is found at its first read.
      if (settings.replicas !== undefined)
        settings.replicas.expectPrimary(await primaryIdentity(context.driver, options))
      return new EntityManager(context, settings)
    } catch (e) {
      const show = (options as { errorValues?: unknown } | null)?.errorValues === true
      throw redactError(show ? withValuesShown(e) : e)
    }
  }

  /**
   * A new, empty unit of work sharing this one's client, schema, id pool and options (no query).
   *
   * @example
   * const requestEm = rootEm.fork()
   */
  fork(given?: ForkOptions): EntityManager {
    return new EntityManager(this.#settings, forkSettings(this.#settings, given))
  }

  /**
   * Whether the flush `flushId` (from a `COMMIT_OUTCOME_UNKNOWN` error's `flushId`) committed, asked
   * of the flush log (the `flushLog` option). Definitive: it waits for that flush's transaction if the
   * server still runs it, and once it answers false that flush can never commit later. If true, do
   * not flush this unit of work again (its new rows would collide with their own keys): `clear()` it
   * or start a new one and reload.
   *
   * @example
   * try { await em.flush() } catch (e) {
   *   if (isPipeflushError(e, 'COMMIT_OUTCOME_UNKNOWN') && !(await em.wasCommitted(e.flushId!))) await em.flush()
   * }
   */
  async wasCommitted(flushId: string): Promise<boolean> {
    const { flushLog } = this.#settings
    if (flushLog === undefined) {
      throw errors.invalidConfig(
        'wasCommitted needs a flush log: pass `flushLog: "pipeflush_flush_log"` to EntityManager.connect (and create the table).',
      )
    }
    // Never in a locking transaction: its insert of the id must commit for the answer to hold.
    const statement = wasCommittedStatement(flushLog, flushId)
    return committedIn(await this.#reads.onPrimary(statement, 'Asking the flush log'))
  }

  /**
   * What is known of each read replica (the `replicas` option): whether reads go to it, its lag as
   * last measured, why it is left out. Empty without replicas.
   *
   * @example
   * root.replicas // [{ address: '10.0.0.2:5432', usable: true, lagMs: 0, reason: undefined }]
   */
  get replicas(): ReplicaStatus[] {
    return this.#settings.replicas?.status() ?? []
  }

  /** The schema model this entity manager writes with. */
  get schema(): SchemaModel {
    return this.#settings.schema
  }

  /**
   * Reads the catalog again, after a migration changed the tables under a running process (a column
   * or table added, dropped or renamed, a type or an enum's labels changed, a foreign key added): the
   * entity managers made from then on (`fork()` of any entity manager of the client, `connect` again)
   * use it; this one and those made before keep the schema they have, which their entities are of.
   * A statement of pipeflush's failing because a table changed (a column or table gone, 42703 or
   * 42P01; a type changed, 42804) reads it again by itself, in the background. `INVALID_CONFIG` for a
   * schema declared in code (the `schema` option): connect with the new one.
   *
   * @example
   * await runMigrations()
   * const schema = await root.refreshSchema() // root.fork() now knows the new column
   */
  async refreshSchema(): Promise<SchemaModel> {
    const catalog = this.#settings.catalog
    if (catalog === undefined)
      throw errors.invalidConfig(
        'refreshSchema: the schema was declared in code (the schema option), not read from the catalog: connect with the new one.',
      )
    return await catalog.source.readAgain()
  }

  /** The pipeline mode of its flushes. */
  get pipeline(): PipelineMode {
    return this.#settings.mode
  }

  /** The client's driver: `postgres.js` (a `postgres()` client) or `pg` (a `pg.Pool`). */
  get driver(): 'postgres.js' | 'pg' {
    return this.#settings.driver.name
  }

  /**
   * A new entity of `table`, inserted by the next flush. Unknown tables and columns are errors at
   * once. Sequence and identity keys get their id at flush; uuid keys get a v7 uuid now; keys given
   * are kept. An entity given as a foreign-key value stands for its key.
   *
   * @example
   * const book = em.create('book', { title: 'Notes', author_id: ada })
   */
  create(table: string, values: Readonly<Record<string, unknown>> = {}): Entity {
    // No closure per call when errors show no values (the default): bulk loads create many entities.
    if (!this.#settings.errorValues) return this.#create(table, values)
    return this.#shown(() => this.#create(table, values))
  }

  #create(table: string, values: Readonly<Record<string, unknown>>): Entity {
    const model = writableTable(this.#settings.schema, table, 'create')
    const row = newRow(model, values)
    return this.#uow.add(model, row, 'new').entity
  }

  /**
   * Rows of `table` matching `where` (column = value; an array means any of, but on an array or a
   * jsonb column it is the value; null means IS NULL; an entity stands for its key), ordered by
   * primary key or `options.orderBy` (then `limit` and `offset`), tracked in the identity map: a row already managed is returned as the same object,
   * with its unflushed changes. Removed entities are left out. `options.with` loads relations of the
   * rows too, to any depth, each filtered, ordered, limited or counted as it says, in the same message
   * (see {@link populate}). Every read started in the same tick (`find`, `load`, `populate`...) goes in one
   * round trip on one connection. `table` may be a view or materialized view: its rows are read-only
   * (an assignment is an error at once, a change made in place one at the flush), in the view's
   * order, each read a new object unless the view was declared with a key (`defineSchema`).
   *
   * @example
   * const drafts = await em.find('book', { title: 'Draft' }, { with: { author: true, reviews: true } })
   * const listed = await em.find('customer_list', { country: 'France' }) // a view
   * const latest = await em.find('article', {}, {
   *   orderBy: { created_at: 'desc' }, limit: 20,
   *   with: { comments: { $orderBy: { created_at: 'desc' } }, favorites: { $where: { user_id: 7 } }, $count: ['favorites'] },
   * })
   */
  find(table: string, where: Where = {}, options: FindOptions = {}): Promise<Entity[]> {
    return watchDrift(
      this.#shown(() => this.#reads.find(table, where, options)),
      this.#settings.catalog,
    )
  }

  /** The first row of {@link find}, or undefined. */
  async findOne(table: string, where: Where = {}, options: FindOptions = {}): Promise<Entity | undefined> {
    return (await this.find(table, where, options))[0]
  }

  /**
   * The row of `table` with primary key `key` (an object of the key columns for composite keys):
   * from the identity map when managed (no query), else from the database, with the other loads of
   * the table in this tick in one select. `options.with` loads relations with it (see
   * {@link populate}). Throws `NOT_FOUND`.
   *
   * @example
   * em.remove(await em.load('review', 3))
   * const author = await em.load('author', 3, { with: { books: { reviews: true, tags: true, publisher: true } } })
   * author.books // the author's books, each with its reviews, tags and publisher
   */
  load(table: string, key: unknown, options: ReadOptions = {}): Promise<Entity> {
    return watchDrift(
      this.#shown(() => this.#reads.load(table, key, options)),
      this.#settings.catalog,
    )
  }

  /**
   * Loads relations of managed entities, to any depth, in one round trip whatever the depth: each
   * level is selected through its parent's keys. A relation of the schema's foreign keys: a
   * many-to-one (`book.author`), its inverse one-to-many (`author.books`), or a many-to-many through
   * a link table (`book.tags`); docs/reads.md (Relation names) gives the rules that name them. Every row is tracked
   * (an entity already managed keeps its pending changes). Reading a loaded relation gives the
   * entities this unit of work holds for it; reading one that was not loaded is `NOT_LOADED`, never
   * a query.
   *
   * @example
   * const books = await em.find('book', { author_id: 3 })
   * await em.populate(books, { reviews: true, publisher: true })
   * books[0]?.['reviews'] // loaded
   */
  populate(entities: Entity | readonly Entity[], tree: With): Promise<void> {
    return watchDrift(
      this.#shown(() => this.#reads.populate(entities, tree)),
      this.#settings.catalog,
    )
  }

  /**
   * Rows of `table` selected by the application's own SQL (`statement.text` selecting every column of
   * the table as text, aliased `c0, c1...` in table order, with its WHERE, ORDER BY, LIMIT...; `params`
   * as texts), tracked like {@link find}'s, in the statement's order, in the batch of this tick.
   * `options.with` loads their relations in the same message, each level selected through the
   * statement's rows (the statement runs once per level). `@pipeflush/kysely`'s `load(query)` goes
   * through it.
   *
   * @example
   * await em.loadRows('book', { text: 'select t.id::text as c0, ... from book t where ... order by ... limit 10', params: [] }, {
   *   with: { author: true, $count: ['reviews'] },
   * })
   */
  loadRows(table: string, statement: ReadStatement, options: ReadOptions = {}): Promise<Entity[]> {
    return watchDrift(
      this.#shown(() => this.#reads.rows(table, statement, options)),
      this.#settings.catalog,
    )
  }

  /**
   * The rows of the application's own SQL, untracked, as the driver gives them (its type parsers: an
   * int8 count is a string), in the batch of this tick: an aggregate or a scalar read in the same round
   * trip as the entities a request reads.
   *
   * @example
   * const [counted, articles] = await Promise.all([
   *   em.select({ text: 'select count(*)::int as n from article', params: [] }),
   *   em.find('article', {}, { limit: 20 }),
   * ]) // one round trip
   * const total = counted[0]?.['n'] // a number: the select casts the count to int
   */
  select(statement: ReadStatement): Promise<readonly Record<string, unknown>[]> {
    return this.#shown(() => this.#reads.select(statement))
  }

  /**
   * How many rows `relation` relates to `entity`, as the graph load that counted them (`$count` in a
   * `with` tree) saw it: a count is read, not kept up to date with the unit of work's changes.
   * `NOT_LOADED` when no read counted it. An int8 count read as a number, exact up to 2^53 - 1.
   *
   * @example
   * const [article] = await em.find('article', { slug: 'hello' }, { with: { $count: ['favorites'] } })
   * if (article) em.countOf(article, 'favorites') // 3
   */
  countOf(entity: Entity, relation: string): number {
    const state = this.#uow.own(entity)
    const n = countOf(state, relation)
    if (n === undefined) throw errors.notCounted(state.table.key, relation, state.key)
    return n
  }

  /**
   * Tracks a row read elsewhere (e.g. with Kysely) as a managed entity, or returns the entity already
   * managed for its key. `row` must hold every column of the table, as the database holds them.
   *
   * @example
   * const book = em.merge('book', rowReadElsewhere)
   */
  merge(table: string, row: Readonly<Record<string, unknown>>): Entity {
    return this.#shown(() => {
      const model = readableTable(this.#settings.schema, table)
      const values = mergedRow(model, row)
      return this.#uow.add(model, values, 'managed').entity
    })
  }

  /**
   * Inserts `values` into `table`, or on a conflict of the `conflict` columns (a unique constraint or
   * the primary key) updates the `update` columns (default: every supplied column but the conflict,
   * key and version columns; `[]` updates nothing). Batched per table like inserts, in the same flush,
   * which returns each upserted row as stored. Returns the row's entity: until the flush its key is not
   * known (the row may exist), and new or changed rows of the same flush may still reference it (a
   * foreign-key value): the flush looks its key up by the conflict values in the statement that
   * writes the reference, after the upsert, in the same round trip. After the commit the entity holds
   * the row as stored, every column, and is managed, unless an entity of that key was managed already
   * (that one stays, unchanged; the upserted one is detached). Several upserts of one conflict key: the
   * last wins (the earlier entities are detached, holding what it got). `[]` as `update` still updates
   * the conflict column to its value, so that a conflicting row comes back: a new row version, and
   * update triggers fire. Changing a conflict column of the entity before the flush is `INVALID_VALUE`
   * when it is referenced.
   *
   * @example
   * const tag = em.upsert('tag', { name: 'poetry' }, { conflict: ['name'], update: [] })
   * em.create('book_tag', { book_id: book, tag_id: tag }) // resolved by name in the flush
   * await em.flush() // one round trip; tag.id is the poetry tag's id, new or existing
   */
  upsert(
    table: string,
    values: Readonly<Record<string, unknown>>,
    options: { readonly conflict: readonly string[]; readonly update?: readonly string[] | undefined },
  ): Entity {
    return this.#shown(() => {
      const model = writableTable(this.#settings.schema, table, 'upsert')
      const { row, spec } = upsertOf(model, values, options)
      return this.#uow.upsert(model, row, spec).entity
    })
  }

  /**
   * Marks `entity` for deletion by the next flush (a new entity is simply forgotten; one removed
   * already stays so). A detached entity, which the unit of work no longer tracks, is `INVALID_STATE`:
   * nothing would delete its row.
   *
   * @example
   * em.remove(book)
   */
  remove(entity: Entity): void {
    const state = this.#uow.own(entity)
    if (state.table.kind !== 'table') throw errors.readOnly(state.table.key, state.table.kind, 'remove')
    if (state.status === 'detached')
      throw errors.removeDetached(
        state.table.key,
        state.key === null ? undefined : describeKeyText(state.key),
      )
    this.#uow.remove(state)
  }

  /** What the next flush would write, counted. */
  get pending(): { inserts: number; updates: number; deletes: number; upserts: number } {
    const p = this.#uow.pending()
    return {
      inserts: p.inserts.length,
      updates: p.updates.length,
      deletes: p.deletes.length,
      upserts: p.upserts.length,
    }
  }

  /**
   * The plan the next flush would send, as plain data (statements with parameters, in waves), without
   * sending anything. Ids not yet assigned show as placeholders (`-1`, `-2`...).
   *
   * @example
   * console.log(formatPlan(em.plan()))
   */
  plan(): FlushPlan {
    return this.#shown(() => planUnitOfWork(this.#uow, this.#settings))
  }

  /**
   * Writes every pending change in one transaction and returns what it did. With nothing to write it
   * sends nothing. On failure nothing is committed (or, with `COMMIT_OUTCOME_UNKNOWN`, the flush log
   * tells) and the unit of work is as before: fix the cause and flush again. Errors are
   * `PipeflushError`s. The `hooks` option runs code before (`beforeFlush`, `beforeCreate`,
   * `beforeUpdate`: what they change is taken back if the flush fails) and after the commit
   * (`afterCommit`); afterwards the entities hold the values the server filled (`serverValues`).
   *
   * @example
   * const { roundTrips, statements } = await em.flush()
   */
  flush(): Promise<FlushReport> {
    return watchDrift(
      this.#shown(() => this.#flushes.flush(this)),
      this.#settings.catalog,
    )
  }

  /** `fn`'s result; its errors with the values they are about, when the `errorValues` option is on. */
  #shown<T>(fn: () => T): T {
    return this.#settings.errorValues ? shownIf(true, fn) : fn()
  }

  /**
   * Forgets every entity (they become detached) and every pending change; a transaction a locking
   * read began is rolled back, its locks released and its connection given back (awaiting the result
   * is optional: it waits for the ROLLBACK).
   *
   * @example
   * const account = await em.load('account', 7, { lock: 'update' })
   * if (Number(account['balance']) < amount) await em.clear() // nothing written, the lock released
   */
  clear(): Promise<void> {
    this.#uow.clear()
    return this.#connections.release()
  }

  /** `new`, `managed`, `removed` or `detached`; undefined for objects that are not entities of this manager. */
  stateOf(entity: unknown): 'new' | 'managed' | 'removed' | 'detached' | undefined {
    return this.#uow.statusOf(entity)
  }

  /** The table key of an entity of this manager. */
  tableOf(entity: Entity): string {
    return this.#uow.own(entity).table.key
  }
}
