import type {
  Entity,
  EntityManager,
  FlushPlan,
  FlushReport,
  PipelineMode,
  SchemaModel,
} from '@pipeflush/core'
import type { Compilable, InferResult, Kysely } from 'kysely'
import { given } from './given-values.ts'
import { loadQuery, selectQuery } from './load/load-query.ts'
import type {
  ManyRelationName,
  NoRelations,
  Related,
  RelationName,
  TypedFindOptions,
  TypedReadOptions,
  WithTree,
} from './relations.ts'
import type {
  AliasedEntityQuery,
  AnyEntity,
  AssignValues,
  ColumnName,
  CreateValues,
  EntityQuery,
  KeyOf,
  Row,
  TableName,
  TableOfRow,
  TypedEntity,
  Where,
} from './types.ts'

/**
 * What {@link TypedEntityManager.select} takes: a Kysely query that reads. Kysely's builders that
 * write (insert, update, delete, merge) have `returning`, which a select's has not, so such a query
 * does not compile (a select whose `with` writes does, and is refused at run time, nothing sent).
 */
type ReadQuery = Compilable & { readonly returning?: never }

/**
 * A unit of work typed by the Kysely database interface `DB`: table names, column names and value
 * types of `create`, `assign`, `find` and of entity properties are checked at compile time; with
 * `R` (see `relationsTypeSource`), `with` trees and `related` too. Flushes
 * are pipeflush's (one pipelined transaction); reads written with Kysely are loaded into the same
 * identity map with {@link TypedEntityManager.load}. One per request: get it from
 * `factory.em()` or `factory.run()`, never share it between concurrent requests.
 *
 * @example
 * const em = factory.em()
 * const ada = em.create('author', { name: 'Ada' })
 * em.create('book', { title: 'Notes', author_id: ada })
 * const [draft] = await em.load(em.db.selectFrom('book').selectAll().where('title', '=', 'Draft'))
 * if (draft) em.remove(draft)
 * const report = await em.flush() // one round trip once warm
 */
export class TypedEntityManager<DB, R = NoRelations> {
  /** The untyped `@pipeflush/core` entity manager underneath. */
  readonly core: EntityManager
  /** The application's Kysely instance (reads), on the same pool as the flushes. */
  readonly db: Kysely<DB>

  /** @internal Use `createEntityManagerFactory(...).em()`. */
  constructor(core: EntityManager, db: Kysely<DB>) {
    this.core = core
    this.db = db
  }

  /**
   * Whether `entity` is an entity of `table` in this unit of work (narrows its type).
   *
   * @example
   * for (const e of created) if (em.is(e, 'book')) console.log(e.title)
   */
  is<T extends TableName<DB>>(entity: unknown, table: T): entity is TypedEntity<DB, T> {
    return this.core.stateOf(entity) !== undefined && this.core.tableOf(entity as Entity) === table
  }

  /** The pipeline mode of this unit of work's flushes. */
  get pipeline(): PipelineMode {
    return this.core.pipeline
  }

  /**
   * A new entity of `table`, inserted by the next flush. Generated and defaulted columns may be left
   * out (or given as `undefined`, as Kysely's insert takes them); an entity given as a foreign-key
   * value stands for its key; a string given to a json or jsonb column is JSON text, as Kysely sends
   * it (`JSONColumnType`, kysely-codegen's `Json`): the entity holds the value it is.
   *
   * @example
   * const book = em.create('book', { title: 'Notes', author_id: ada })
   */
  create<T extends TableName<DB>>(table: T, values: CreateValues<DB, T>): TypedEntity<DB, T> {
    const row = given(this.core.schema, table, values as Record<string, unknown>, 'create')
    return this.core.create(table, row) as unknown as TypedEntity<DB, T>
  }

  /**
   * Assigns several columns of `entity` at once (Kysely's `Updateable` types); an entity is accepted
   * for a key column. A column given as `undefined` is left as it is, and a string given to a json or
   * jsonb column is JSON text, as at {@link create}. Plain assignment (`book.title = 'x'`) works too
   * (the value as it is).
   *
   * @example
   * em.assign(book, { title: 'Final', publisher_id: newPublisher })
   */
  assign<T extends TableName<DB>>(
    entity: TypedEntity<DB, T>,
    values: AssignValues<DB, T>,
  ): TypedEntity<DB, T> {
    const target = entity as unknown as Record<string, unknown>
    const table =
      this.core.stateOf(entity) === undefined ? '' : this.core.tableOf(entity as unknown as Entity)
    const row = given(this.core.schema, table, values as Record<string, unknown>, 'assign')
    for (const column of Object.keys(row)) target[column] = row[column]
    return entity
  }

  /**
   * Rows of `table` matching `where` (an array means any of, null means IS NULL), ordered by primary
   * key or `options.orderBy` (then `limit`, `offset`), tracked in the identity map, with the relations
   * of `options.with`.
   *
   * @example
   * const books = await em.find('book', { author_id: [1, 2] })
   * const latest = await em.find('book', {}, { orderBy: { published_on: 'desc' }, limit: 10, with: { $count: ['reviews'] } })
   */
  async find<T extends TableName<DB>>(
    table: T,
    where: Where<DB, T> = {},
    options: TypedFindOptions<DB, R, T> = {},
  ): Promise<TypedEntity<DB, T>[]> {
    return (await this.core.find(table, where, options as never)) as unknown as TypedEntity<DB, T>[]
  }

  /** The first row of {@link find}, or undefined. */
  async findOne<T extends TableName<DB>>(
    table: T,
    where: Where<DB, T> = {},
    options: TypedFindOptions<DB, R, T> = {},
  ): Promise<TypedEntity<DB, T> | undefined> {
    return (await this.core.findOne(table, where, options as never)) as unknown as
      | TypedEntity<DB, T>
      | undefined
  }

  /**
   * Loads relations of managed entities (see core's `EntityManager.populate`), in one round trip
   * with the other reads of this tick. Relations are read with {@link related}.
   *
   * @example
   * await em.populate(books, { reviews: true, publisher: true })
   */
  populate<T extends TableName<DB>>(
    entities: TypedEntity<DB, T> | readonly TypedEntity<DB, T>[],
    tree: WithTree<DB, R, T>,
  ): Promise<void> {
    return this.core.populate(entities as never, tree as never)
  }

  /**
   * Relation `name` of `entity`, loaded (`with`, `populate`): its related entities. Typed by `R` when
   * the factory has it (`relationsTypeSource`); else say which table the relation reaches (`target`,
   * and `'one'` for a many-to-one or a one-to-one). `NOT_LOADED` when it was not loaded, never a query.
   *
   * @example
   * const books = em.related(author, 'books') // with R: TypedEntity<DB, 'book'>[]
   * const publisher = em.related(book, 'publisher', 'publisher', 'one') // without R: TypedEntity<DB, 'publisher'> | null
   */
  related<T extends TableName<DB>, K extends RelationName<R, T>>(
    entity: TypedEntity<DB, T>,
    name: K,
  ): Related<DB, R, T, K>
  related<T extends TableName<DB>>(entity: AnyEntity<DB>, name: string, target: T): TypedEntity<DB, T>[]
  related<T extends TableName<DB>>(
    entity: AnyEntity<DB>,
    name: string,
    target: T,
    one: 'one',
  ): TypedEntity<DB, T> | null
  related(entity: AnyEntity<DB>, name: string, _target?: string, _one?: 'one'): unknown {
    return (entity as unknown as Record<string, unknown>)[name]
  }

  /**
   * `load(table, key)`: the row with that primary key, from the identity map when managed (no query),
   * else from the database; throws `NOT_FOUND`.
   *
   * `load(query, options?)`: the rows of a Kysely select over one table with `selectAll()`, tracked
   * in the identity map (managed rows come back as the same objects), in the query's order. The
   * query's WHERE (joins, `exists`...), ORDER BY, LIMIT, OFFSET and locking clauses are kept.
   * `options.with` loads their relations in the same message, each level selected through the query's
   * rows; it goes with the other reads of this tick, in one round trip.
   *
   * @example
   * const book = await em.load('book', 7)
   * const cheap = await em.load(em.db.selectFrom('book').selectAll().where('price', '<', '10').orderBy('id'))
   * const page = await em.load(em.db.selectFrom('book').selectAll().orderBy('id', 'desc').limit(20), {
   *   with: { author: true, $count: ['reviews'] },
   * })
   */
  load<T extends TableName<DB>>(
    table: T,
    key: KeyOf<DB, T>,
    options?: TypedReadOptions<DB, R, T>,
  ): Promise<TypedEntity<DB, T>>
  load<T extends TableName<DB>, O extends Row<DB, T>>(
    query: EntityQuery<DB, T, O>,
    options?: TypedReadOptions<DB, R, T>,
  ): Promise<TypedEntity<DB, T>[]>
  load<QDB, A extends keyof QDB & string, O extends Row<DB, TableOfRow<DB, QDB[A]>>>(
    query: AliasedEntityQuery<DB, QDB, A, O>,
    options?: TypedReadOptions<DB, R, TableOfRow<DB, QDB[A]>>,
  ): Promise<TypedEntity<DB, TableOfRow<DB, QDB[A]>>[]>
  async load(tableOrQuery: unknown, key?: unknown, options?: object): Promise<unknown> {
    if (typeof tableOrQuery === 'string') return this.core.load(tableOrQuery, key, options as never)
    return loadQuery(this.core, tableOrQuery, key as never)
  }

  /**
   * The rows of any Kysely select, untracked, typed as Kysely types its result, with the other reads
   * of this tick (one round trip): an aggregate or a scalar beside the entities a request reads. An
   * insert, update, delete or merge builder does not compile; a query that writes (those, or a select
   * `with` one) is `INVALID_STATE` at run time, nothing sent (raw `sql` in a `with` is sent as it is).
   * The
   * values are the driver's (its type parsers: an int8 `count(*)` is a string; cast it, e.g.
   * `sql<number>\`count(*)::int\``).
   *
   * @example
   * const [counted, books] = await Promise.all([
   *   em.select(em.db.selectFrom('book').select((eb) => eb.fn.countAll<string>().as('n'))),
   *   em.load(em.db.selectFrom('book').selectAll().limit(20)),
   * ]) // one round trip
   * const total = Number(counted[0]?.n) // an int8 count comes as a string
   */
  select<Q extends ReadQuery>(query: Q): Promise<InferResult<Q>> {
    return selectQuery(this.core, query, this.db) as Promise<InferResult<Q>>
  }

  /**
   * How many rows relation `name` relates to `entity`, as counted by a graph load (`$count` in a
   * `with` tree): a number, read when loaded (not kept up to date with this unit of work's changes).
   * `NOT_LOADED` when no read counted it.
   *
   * @example
   * const [book] = await em.find('book', { id: 7 }, { with: { $count: ['reviews'] } })
   * if (book) em.countOf(book, 'reviews') // 3
   */
  countOf<T extends TableName<DB>>(
    entity: TypedEntity<DB, T>,
    name: ManyRelationName<R, T> | ([keyof R] extends [never] ? string : never),
  ): number {
    return this.core.countOf(entity as unknown as Entity, name)
  }

  /**
   * Inserts `values` into `table`, or, when a row with the same `conflict` columns exists (a unique
   * constraint or the primary key), updates the `update` columns (default: every supplied column but
   * the conflict and key columns; `[]`: update nothing). Batched per table in the next flush
   * (`insert ... select from unnest ... on conflict ... do update ... returning`). Returns the row's
   * entity, which rows created in the same flush may reference: the flush looks its key up by the
   * conflict values, in the same round trip; afterwards it holds the row as stored (see the core
   * `EntityManager.upsert`). `values` are taken as at {@link create} (`undefined` left out, JSON text
   * parsed).
   *
   * @example
   * const ace = em.upsert('publisher', { name: 'Ace' }, { conflict: ['name'], update: [] })
   * em.create('book', { title: 'Dune', author_id: 1, publisher_id: ace })
   */
  upsert<T extends TableName<DB>>(
    table: T,
    values: CreateValues<DB, T>,
    options: {
      readonly conflict: readonly ColumnName<DB, T>[]
      readonly update?: readonly ColumnName<DB, T>[] | undefined
    },
  ): TypedEntity<DB, T> {
    const row = given(this.core.schema, table, values as Record<string, unknown>, 'upsert')
    return this.core.upsert(table, row, options) as unknown as TypedEntity<DB, T>
  }

  /**
   * Deletes `entity` at the next flush (a new entity is simply forgotten).
   *
   * @example
   * em.remove(review)
   */
  remove(entity: AnyEntity<DB>): void {
    this.core.remove(entity as unknown as Entity)
  }

  /**
   * Writes every pending change in one transaction, pipelined (see `FlushReport`). On failure nothing
   * is committed; the error is a `PipeflushError` (e.g. code `OPTIMISTIC_LOCK`).
   *
   * @example
   * const { roundTrips, statements, durationMs } = await em.flush()
   */
  flush(): Promise<FlushReport> {
    return this.core.flush()
  }

  /**
   * Whether the flush `flushId` committed, read from the flush log (`flushLog` option): what to ask
   * after `COMMIT_OUTCOME_UNKNOWN` before flushing again. See the core `EntityManager.wasCommitted`.
   *
   * @example
   * const report = await em.flush()
   * await em.wasCommitted(report.flushId) // true
   */
  wasCommitted(flushId: string): Promise<boolean> {
    return this.core.wasCommitted(flushId)
  }

  /**
   * Reads the catalog again after a migration changed the tables under a running process: the
   * entity managers made from then on (`factory.em()`, `fork()`) use it. See the core
   * `EntityManager.refreshSchema`.
   *
   * @example
   * await migrateToLatest(db)
   * await factory.em().refreshSchema() // the next factory.em() knows the new column
   */
  refreshSchema(): Promise<SchemaModel> {
    return this.core.refreshSchema()
  }

  /** What the next flush would send, without sending it (print it with `formatPlan`). */
  plan(): FlushPlan {
    return this.core.plan()
  }

  /** What the next flush would write, counted. */
  get pending(): EntityManager['pending'] {
    return this.core.pending
  }

  /** `new`, `managed`, `removed` or `detached`; undefined for anything not an entity of this manager. */
  stateOf(entity: unknown): 'new' | 'managed' | 'removed' | 'detached' | undefined {
    return this.core.stateOf(entity)
  }

  /** Forgets every entity and pending change; a locking read's transaction is rolled back. */
  clear(): Promise<void> {
    return this.core.clear()
  }
}
