import type {
  Entity as CoreEntity,
  EntityManager,
  FlushPlan,
  FlushReport,
  PipelineMode,
  ReadOptions,
} from '@pipeflush/core'
import type { PgTable } from 'drizzle-orm/pg-core'
import type { ClientDefaults } from './defaults.ts'
import { errors } from './errors.ts'
import { loadSelect } from './load/load-select.ts'
import { selectRows } from './load/select-rows.ts'
import type {
  Found,
  Loaded,
  ManyName,
  Related,
  RelationName,
  TypedFindOptions,
  TypedReadOptions,
  WithTree,
} from './relation-types.ts'
import type { SchemaTables } from './schema/tables.ts'
import type { AnySelect, SelectKey, SelectOf, SelectResult } from './select-types.ts'
import type {
  AnyEntity,
  AssignValues,
  ColumnKey,
  CreateValues,
  Entity,
  KeyOf,
  KeyOfTable,
  TableOfEntity,
  Where,
} from './types.ts'

/** What every entity manager of one factory shares: the schema's tables and their client-side defaults. */
export interface ManagerContext {
  readonly tables: SchemaTables
  readonly defaults: ClientDefaults
  /** Tables of the schema pipeflush does not track, and why. */
  readonly untracked: ReadonlyMap<string, string>
}

/**
 * A unit of work over the application's Drizzle tables: tables are given as the table objects
 * (`em.create(books, ...)`), values and entities are typed by them (`$inferInsert`, `$inferSelect`)
 * and use their property names (`authorId`) and Drizzle's values for each column as declared.
 * Flushes are pipeflush's (one pipelined transaction); a Drizzle select is loaded into the same
 * identity map with {@link DrizzleEntityManager.load}. One per request: get it from `factory.fork()`
 * or `factory.run()`, never share it between concurrent requests.
 *
 * @example
 * const em = factory.fork()
 * const ada = em.create(authors, { name: 'Ada' })
 * em.create(books, { title: 'Notes', authorId: ada })
 * const [draft] = await em.load(db.select().from(books).where(eq(books.title, 'Draft')))
 * if (draft) em.remove(draft)
 * const report = await em.flush() // one round trip once warm
 */
export class DrizzleEntityManager<S> {
  /** The untyped `@pipeflush/core` entity manager underneath (table keys: the schema object's keys). */
  readonly core: EntityManager
  readonly #context: ManagerContext

  /** @internal Use `createEntityManagerFactory(...).fork()`. */
  constructor(core: EntityManager, context: ManagerContext) {
    this.core = core
    this.#context = context
  }

  /**
   * Whether `entity` is an entity of `table` in this unit of work (narrows its type).
   *
   * @example
   * for (const e of created) if (em.is(e, books)) console.log(e.title)
   */
  is<T extends PgTable>(entity: unknown, table: T): entity is Entity<T> {
    return (
      this.core.stateOf(entity) !== undefined && this.core.tableOf(entity as CoreEntity) === this.#key(table)
    )
  }

  /** The pipeline mode of this unit of work's flushes. */
  get pipeline(): PipelineMode {
    return this.core.pipeline
  }

  /**
   * A new entity of `table`, inserted by the next flush. Columns with a default, a `$defaultFn`
   * (run now), generated or nullable columns may be left out (a property given as `undefined` is left
   * out, as Drizzle's insert leaves it out); an entity given as a key value stands for its key.
   *
   * @example
   * const book = em.create(books, { title: 'Notes', authorId: ada })
   */
  create<T extends PgTable>(table: T, values: CreateValues<T>): Entity<T> {
    const key = this.#key(table)
    const filled = this.#context.defaults.filled(key, given(values as Record<string, unknown>))
    return this.core.create(key, filled) as unknown as Entity<T>
  }

  /**
   * Assigns several properties of `entity` at once; an entity is accepted for a key column. Plain
   * assignment (`book.title = 'x'`) works too.
   *
   * @example
   * em.assign(book, { title: 'Final', publisherId: newPublisher })
   */
  assign<E extends AnyEntity>(entity: E, values: AssignValues<TableOfEntity<S, E>>): E {
    const target = entity as unknown as Record<string, unknown>
    for (const [property, value] of Object.entries(values)) if (value !== undefined) target[property] = value
    return entity
  }

  /**
   * Rows of `table` matching `where` (property = value, an array means any of, null means IS NULL),
   * tracked in the identity map, ordered by `orderBy` (properties; the primary key breaks ties, and
   * orders them without one), then `limit` and `offset`; `with` loads relations in the same round
   * trip, each filtered (`$where`), ordered (`$orderBy`), limited per row (`$limit`) or counted
   * (`$count`, read with {@link countOf}) as it says.
   *
   * @example
   * const found = await em.find(books, { authorId: [1, 2] }, { with: { author: true } })
   * const page = await em.find(books, {}, {
   *   orderBy: { updatedAt: 'desc' },
   *   limit: 20,
   *   with: { reviews: { $orderBy: { stars: 'desc' }, $limit: 3 }, $count: ['reviews'] },
   * })
   */
  async find<T extends PgTable, const W extends WithTree<S, KeyOfTable<S, T>> = Record<never, never>>(
    table: T,
    where: Where<T> = {},
    options: TypedFindOptions<S, KeyOfTable<S, T>, W> = {},
  ): Promise<Found<S, T, W>[]> {
    return (await this.core.find(this.#key(table), where, options as never)) as unknown as Found<S, T, W>[]
  }

  /** The first row of {@link find}, or undefined. */
  async findOne<T extends PgTable, const W extends WithTree<S, KeyOfTable<S, T>> = Record<never, never>>(
    table: T,
    where: Where<T> = {},
    options: TypedFindOptions<S, KeyOfTable<S, T>, W> = {},
  ): Promise<Found<S, T, W> | undefined> {
    return (await this.find(table, where, options))[0]
  }

  /**
   * Loads relations of managed entities (see core's `EntityManager.populate`), in one round trip
   * with the other reads of this tick; the tree says what to read of each relation, as `find`'s does.
   *
   * @example
   * const found = await em.find(books, { authorId: 1 })
   * await em.populate(found, { reviews: { $orderBy: { stars: 'desc' }, $limit: 3 }, $count: ['reviews'] })
   */
  populate<E extends AnyEntity>(
    entities: E | readonly E[],
    tree: WithTree<S, KeyOfTable<S, TableOfEntity<S, E>>>,
  ): Promise<void> {
    return this.core.populate(entities as never, tree as never)
  }

  /**
   * Relation `name` of `entity` as loaded (`with`, `populate`): its entities, or its entity (or null),
   * typed by the table's `relations()`. `NOT_LOADED` when it was not loaded, never a query.
   *
   * @example
   * const author = await em.load(authors, 1, { with: { books: true } })
   * const written = em.related(author, 'books') // Entity<typeof books>[]
   */
  related<E extends AnyEntity, R extends RelationName<S, E>>(entity: E, name: R): Related<S, E, R> {
    return (entity as unknown as Record<string, unknown>)[name] as Related<S, E, R>
  }

  /**
   * `load(table, key)`: the row with that primary key, from the identity map when managed (no
   * query), else from the database; throws `NOT_FOUND`.
   *
   * `load(query, options?)`: the rows of a Drizzle select from one table of the schema, tracked in the
   * identity map (managed rows come back as the same objects), in the select's order: its WHERE,
   * ORDER BY, LIMIT, OFFSET and locking clauses are kept, its select list is every column.
   * `options.with` loads their relations in the same message, each level selected through the
   * select's rows. It joins this tick's other reads: one round trip for all of them.
   *
   * @example
   * const book = await em.load(books, 7)
   * const cheap = await em.load(db.select().from(books).where(lt(books.price, '10')).orderBy(books.id))
   * const page = await em.load(db.select().from(books).orderBy(desc(books.updatedAt)).limit(20), {
   *   with: { author: true, $count: ['reviews'] },
   * })
   */
  load<T extends PgTable, const W extends WithTree<S, KeyOfTable<S, T>> = Record<never, never>>(
    table: T,
    key: KeyOf<T>,
    options?: TypedReadOptions<S, KeyOfTable<S, T>, W>,
  ): Promise<Found<S, T, W>>
  load<Q extends AnySelect, const W extends WithTree<S, SelectKey<S, Q>> = Record<never, never>>(
    query: Q,
    options?: TypedReadOptions<S, SelectKey<S, Q>, W>,
  ): Promise<([SelectKey<S, Q>] extends [never] ? SelectOf<S, Q> : Loaded<S, SelectKey<S, Q>, W>)[]>
  async load(tableOrQuery: unknown, keyOrOptions?: unknown, options?: object): Promise<unknown> {
    if (this.#context.tables.find(tableOrQuery) !== undefined) {
      return this.core.load(this.#key(tableOrQuery), keyOrOptions, options as never)
    }
    return loadSelect(this.core, this.#context.tables, tableOrQuery, keyOrOptions as ReadOptions | undefined)
  }

  /**
   * The rows of any Drizzle select (joins, `groupBy`, aggregates...), untracked, with this tick's
   * other reads (one round trip): typed and valued as Drizzle's own select gives them (each field
   * mapped by its column or `mapWith`), so a total or a count goes in the round trip of the entities
   * it is about.
   *
   * @example
   * const [[total], page] = await Promise.all([
   *   em.select(db.select({ n: count() }).from(books)), // [{ n: number }]
   *   em.find(books, {}, { orderBy: { id: 'desc' }, limit: 20 }),
   * ]) // one round trip
   */
  select<Q extends AnySelect>(query: Q): Promise<SelectResult<Q>> {
    return selectRows(this.core, query) as Promise<SelectResult<Q>>
  }

  /**
   * How many rows relation `name` (a `many()`) relates to `entity`, as a read counted them (`$count`
   * in a `with` tree): what the read saw, not kept up to date with this unit of work's changes.
   * `NOT_LOADED` when no read counted it.
   *
   * @example
   * const [ada] = await em.find(authors, { id: 1 }, { with: { $count: ['books'] } })
   * if (ada) em.countOf(ada, 'books') // 2
   */
  countOf<E extends AnyEntity>(
    entity: E,
    name: [RelationName<S, E>] extends [never] ? string : ManyName<S, KeyOfTable<S, TableOfEntity<S, E>>>,
  ): number {
    return this.core.countOf(entity as unknown as CoreEntity, name)
  }

  /**
   * Inserts `values` into `table`, or, when a row with the same `conflict` properties exists (a
   * unique constraint or index, or the primary key), updates the `update` ones (default: every
   * supplied property but the conflict and key ones; `[]`: none); a property given as `undefined` is
   * left out, as at `create`. Batched per table in the next
   * flush. Returns the row's entity, which rows created in the same flush may reference: the flush
   * looks its key up by the conflict values, in the same round trip (see core's `upsert`).
   *
   * @example
   * const ace = em.upsert(publishers, { name: 'Ace' }, { conflict: ['name'], update: [] })
   * em.create(books, { title: 'Dune', authorId: 1, publisherId: ace })
   */
  upsert<T extends PgTable>(
    table: T,
    values: CreateValues<T>,
    options: {
      readonly conflict: readonly ColumnKey<T>[]
      readonly update?: readonly ColumnKey<T>[] | undefined
    },
  ): Entity<T> {
    const key = this.#key(table)
    const model = this.core.schema.tables.get(key)
    const kept =
      model === undefined
        ? []
        : [...model.primaryKey, ...(model.versionColumn === null ? [] : [model.versionColumn])]
    const upserted = this.#context.defaults.upserted(
      key,
      given(values as Record<string, unknown>),
      options,
      kept,
    )
    return this.core.upsert(key, upserted.values, upserted.options) as unknown as Entity<T>
  }

  /**
   * Deletes `entity` at the next flush (a new entity is simply forgotten).
   *
   * @example
   * em.remove(review)
   */
  remove(entity: AnyEntity): void {
    this.core.remove(entity as unknown as CoreEntity)
  }

  /**
   * Writes every pending change in one transaction, pipelined (see `FlushReport`). On failure nothing
   * is committed; the error is a `PipeflushError` (e.g. `OPTIMISTIC_LOCK`), naming columns by their
   * properties.
   *
   * @example
   * const { roundTrips, statements } = await em.flush()
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

  #key(table: unknown): string {
    const { key } = this.#context.tables.of(table)
    const why = this.#context.untracked.get(key)
    if (why !== undefined) throw errors.untrackedTable(key, why)
    return key
  }
}

/**
 * `values` without its properties given as `undefined` (itself when it has none): Drizzle's insert
 * leaves such a property out (the column's default, or NULL), and `$inferInsert` allows it. Core
 * refuses `undefined` as a value (`INVALID_VALUE`); its own API keeps doing so.
 *
 * @example
 * given({ name: 'Ada', role: undefined }) // { name: 'Ada' }
 */
function given(values: Record<string, unknown>): Record<string, unknown> {
  if (typeof values !== 'object' || values === null) return values
  let out: Record<string, unknown> | undefined
  for (const property of Object.keys(values)) {
    if (values[property] !== undefined) continue
    out ??= { ...values }
    delete out[property]
  }
  return out ?? values
}
