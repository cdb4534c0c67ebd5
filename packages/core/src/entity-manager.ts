import { randomUUID } from 'node:crypto'
import type postgres from 'postgres'
import { v7 as uuidv7 } from 'uuid'
import { PipeflushError } from './errors.ts'
import { beginSql, checkFlushLog, flushLogSqlName, wasCommitted } from './execute/flush-log.ts'
import { resolvePrepare } from './execute/pooler.ts'
import { runBurst } from './execute/run-burst.ts'
import { runOff } from './execute/run-off.ts'
import { runWaves } from './execute/run-waves.ts'
import type { ExecuteContext, ExecuteResult, PipelineMode } from './execute/types.ts'
import { assignIds, idNeed, provisionalIds } from './ids/assign-ids.ts'
import { IdAllocator } from './ids/id-allocator.ts'
import { planFlush } from './plan/plan-flush.ts'
import type { FlushPlan, UpsertSpec } from './plan/types.ts'
import { selectSql, type Where } from './read/select-sql.ts'
import { cachedSchema } from './schema/cached-schema.ts'
import type { SchemaModel, TableModel } from './schema/model.ts'
import type { ReadSchemaOptions } from './schema/read-schema.ts'
import {
  changedColumns,
  type PendingChanges,
  resolvedValues,
  resolveReference,
  toChangeSet,
} from './track/changes.ts'
import { makeEntity } from './track/entity-proxy.ts'
import { type Entity, type EntityState, stateOf } from './track/entity-state.ts'
import { IdentityMap } from './track/identity-map.ts'
import { keyWhere, rowKey } from './track/keys.ts'
import { emptyRow } from './track/row.ts'
import { hasMutableColumns, snapshotOf } from './track/snapshot.ts'
import { writableColumn } from './track/writable-column.ts'
import { decodeValue, encodeValue, sameValue } from './values/index.ts'

/** Options of {@link EntityManager.connect}. */
export interface EntityManagerOptions extends ReadSchemaOptions {
  /** How flushes are sent (default `burst`). */
  readonly pipeline?: PipelineMode
  /** A schema declared in code (see `defineSchema`); when given, pg_catalog is not read. */
  readonly schema?: SchemaModel
  /** Ids fetched per sequence at least, each time the pool runs short (default 50). */
  readonly idBlockSize?: number
  /**
   * A flush settles within this many milliseconds, reserving a connection included (default 30000;
   * `Infinity` for no limit). Past it the flush's connection is terminated (the server rolls back what
   * did not reach its COMMIT; the pool opens a new connection) and the flush fails with
   * `FLUSH_TIMEOUT`, or `COMMIT_OUTCOME_UNKNOWN` if its COMMIT had been sent.
   */
  readonly flushTimeoutMs?: number
  /**
   * Opt-in flush log: a table (`name` or `schema.name`) where each flush inserts its id inside its own
   * transaction, in the query that opens it (no extra round trip), so that `em.wasCommitted(flushId)`
   * can tell whether a flush that failed with `COMMIT_OUTCOME_UNKNOWN` committed. Checked at connect;
   * create it with
   * `create table pipeflush_flush_log (flush_id uuid primary key, committed boolean not null, at timestamptz not null default now())`.
   */
  readonly flushLog?: string
  /**
   * Whether flushes use named prepared statements (the extended protocol). Left out (the default):
   * false when the postgres.js client was created with `prepare: false`, else true, and `connect`
   * refuses with `INVALID_CONFIG` when it finds a connection pooler in between (PgBouncer, Supavisor:
   * named prepared statements break behind a transaction-mode pooler). `false`: every flush is sent as
   * simple-protocol queries with literal values (burst: still one round trip; works behind any pooler).
   * `true`: prepared statements, no pooler check (direct connections, session pooling, PgBouncer >= 1.21
   * with `max_prepared_statements`).
   */
  readonly prepare?: boolean
}

/** What a flush did. */
export interface FlushReport {
  /** A unique id of this flush, carried by its errors. */
  readonly flushId: string
  readonly mode: PipelineMode
  /** Network round trips the flush took (0 when there was nothing to write). */
  readonly roundTrips: number
  /** Statements sent (BEGIN and COMMIT not counted). */
  readonly statements: number
  readonly waves: number
  readonly inserted: number
  readonly updated: number
  readonly deleted: number
  /** Rows inserted or updated by upserts. */
  readonly upserted: number
  /** Whether ids had to be fetched (one round trip) before the transaction. */
  readonly idFetch: boolean
  /** Whether some statement was not yet prepared on the connection (the cold path was taken). */
  readonly cold: boolean
  readonly durationMs: number
}

/** What the entity managers of one client share: the schema, the id pool, the options. */
interface Shared {
  readonly sql: postgres.Sql
  readonly schema: SchemaModel
  readonly ids: IdAllocator
  readonly pipeline: PipelineMode
  /**
   * Whether flushes use named prepared statements; resolved at connect when it reads the schema,
   * else at the first flush (the pooler check needs a query), shared by forks.
   */
  readonly prepare: { value?: boolean; readonly requested: boolean | undefined }
  readonly flushTimeoutMs: number
  /** The quoted SQL name of the flush log table, when configured. */
  readonly flushLog: string | undefined
}

const allocators = new WeakMap<postgres.Sql, IdAllocator>()

/**
 * A unit of work: tracks the entities it creates and loads, and writes every change in one flush,
 * pipelined inside one transaction. Create one per request with {@link EntityManager.fork}; an
 * entity manager is not meant to be shared by concurrent requests.
 *
 * @example
 * const em = await EntityManager.connect(sql, { pipeline: 'burst' })
 * const ada = em.create('author', { name: 'Ada' })
 * em.create('book', { title: 'Notes', author_id: ada })
 * const report = await em.flush() // report.roundTrips === 1 once warm
 */
export class EntityManager {
  readonly #shared: Shared
  readonly #map = new IdentityMap()
  /** New entities in creation order. */
  readonly #created = new Set<EntityState>()
  readonly #removed = new Set<EntityState>()
  /** Managed entities assigned since the last flush, plus those with mutable (json, array, bytea, date) columns. */
  readonly #touched = new Set<EntityState>()
  readonly #watch = new Set<EntityState>()
  readonly #upserts: { state: EntityState; spec: UpsertSpec }[] = []
  #flushing = false

  private constructor(shared: Shared) {
    this.#shared = shared
  }

  /**
   * Reads the schema from pg_catalog (once per client and options; or uses `options.schema`) and
   * returns a new entity manager.
   *
   * @example
   * const em = await EntityManager.connect(postgres(url), { versionColumn: 'version' })
   */
  static async connect(sql: postgres.Sql, options: EntityManagerOptions = {}): Promise<EntityManager> {
    const schema = options.schema ?? (await cachedSchema(sql, options))
    let ids = allocators.get(sql)
    if (!ids) {
      ids = new IdAllocator({ blockSize: options.idBlockSize ?? 50 })
      allocators.set(sql, ids)
    }
    const pipeline = options.pipeline ?? 'burst'
    if (!['off', 'waves', 'burst'].includes(pipeline)) {
      throw new PipeflushError(
        'INVALID_CONFIG',
        `pipeline must be 'off', 'waves' or 'burst', not ${JSON.stringify(pipeline)}.`,
      )
    }
    const flushTimeoutMs = checkTimeout(options.flushTimeoutMs ?? DEFAULT_FLUSH_TIMEOUT_MS)
    // The pooler check costs a query: made now when connect reads the schema anyway, else at the
    // first flush (an entity manager on a declared schema connects without I/O).
    const prepare: Shared['prepare'] = { requested: options.prepare }
    if (!options.schema) prepare.value = await resolvePrepare(sql, options.prepare)
    let flushLog: string | undefined
    if (options.flushLog !== undefined) {
      flushLog = flushLogSqlName(options.flushLog)
      await checkFlushLog(sql, options.flushLog)
    }
    return new EntityManager({ sql, schema, ids, pipeline, prepare, flushTimeoutMs, flushLog })
  }

  /**
   * A new, empty unit of work sharing this one's client, schema, id pool and options (cheap: no
   * query). Optionally with another pipeline mode.
   *
   * @example
   * const requestEm = rootEm.fork()
   */
  fork(options: { pipeline?: PipelineMode; flushTimeoutMs?: number } = {}): EntityManager {
    return new EntityManager({
      ...this.#shared,
      pipeline: options.pipeline ?? this.#shared.pipeline,
      flushTimeoutMs:
        options.flushTimeoutMs === undefined
          ? this.#shared.flushTimeoutMs
          : checkTimeout(options.flushTimeoutMs),
    })
  }

  /**
   * Whether the flush `flushId` (from a `COMMIT_OUTCOME_UNKNOWN` error's `flushId`) committed, asked
   * of the flush log (the `flushLog` option). Definitive: it waits for that flush's transaction if the
   * server is still running it, and once it answers false that flush can never commit later. If it
   * answers true, the changes are in the database: do not flush this unit of work again (its new rows
   * would collide with their own keys); `clear()` it or start a new one and reload.
   *
   * @example
   * try { await em.flush() } catch (e) {
   *   if (isPipeflushError(e, 'COMMIT_OUTCOME_UNKNOWN') && !(await em.wasCommitted(e.flushId!))) await em.flush()
   * }
   */
  async wasCommitted(flushId: string): Promise<boolean> {
    const { flushLog, sql } = this.#shared
    if (flushLog === undefined) {
      throw new PipeflushError(
        'INVALID_CONFIG',
        'wasCommitted needs a flush log: pass `flushLog: "pipeflush_flush_log"` to EntityManager.connect (and create the table).',
      )
    }
    return wasCommitted(sql, flushLog, flushId)
  }

  /** Whether flushes use named prepared statements (see the `prepare` option). */
  async #prepare(): Promise<boolean> {
    const state = this.#shared.prepare
    state.value ??= await resolvePrepare(this.#shared.sql, state.requested)
    return state.value
  }

  /** The schema model this entity manager writes with. */
  get schema(): SchemaModel {
    return this.#shared.schema
  }

  /** The pipeline mode of its flushes. */
  get pipeline(): PipelineMode {
    return this.#shared.pipeline
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
    const model = this.#table(table)
    const row = this.#writableRow(model, values)
    const [pk] = model.primaryKey
    if (model.primaryKey.length === 1 && pk !== undefined && (row[pk] === undefined || row[pk] === null)) {
      const column = model.columnsByName.get(pk)!
      if (column.type === 'uuid') row[pk] = uuidv7()
    }
    if (
      model.versionColumn &&
      (row[model.versionColumn] === undefined || row[model.versionColumn] === null)
    ) {
      row[model.versionColumn] = 1
    }
    const state = this.#newState(model, row, 'new', null)
    const key = model.primaryKey.some((k) => stateOf(row[k])) ? null : rowKey(model, row)
    if (key !== null && this.#map.get(model.key, key)) {
      throw new PipeflushError(
        'DUPLICATE_KEY',
        `A ${model.key} with key ${key} is already managed by this entity manager.`,
        { table: model.key, keys: [key] },
      )
    }
    this.#created.add(state)
    return state.entity
  }

  /**
   * Rows of `table` matching `where` (column = value; an array means any of; null means IS NULL),
   * ordered by primary key, tracked in the identity map: a row already managed is returned as the
   * same object, with its unflushed changes. Removed entities are left out.
   *
   * @example
   * const drafts = await em.find('book', { title: 'Draft' })
   */
  async find(table: string, where: Where = {}): Promise<Entity[]> {
    const model = this.#table(table)
    const { sql, params } = selectSql(model, where)
    const rows = await this.#shared.sql.unsafe<Record<string, string | null>[]>(sql, params as never[], {
      prepare: true,
    })
    const out: Entity[] = []
    for (const raw of rows) {
      const state = this.#hydrate(model, raw)
      if (state.status === 'managed' || state.status === 'new') out.push(state.entity)
    }
    return out
  }

  /** The first row of {@link find}, or undefined. */
  async findOne(table: string, where: Where = {}): Promise<Entity | undefined> {
    return (await this.find(table, where))[0]
  }

  /**
   * The row of `table` with primary key `key` (an object of the key columns for composite keys):
   * from the identity map when managed (no query), else from the database. Throws `NOT_FOUND`.
   *
   * @example
   * em.remove(await em.load('review', 3))
   */
  async load(table: string, key: unknown): Promise<Entity> {
    const model = this.#table(table)
    const where = keyWhere(model, key)
    const canonical = rowKey(model, where)
    if (canonical !== null) {
      const known = this.#map.get(model.key, canonical)
      if (known && known.status === 'managed') return known.entity
      if (known && known.status === 'removed') {
        throw new PipeflushError('NOT_FOUND', `${model.key} ${canonical} is removed in this unit of work.`, {
          table: model.key,
          keys: [canonical],
        })
      }
    }
    const found = await this.find(table, where)
    if (!found[0])
      throw new PipeflushError('NOT_FOUND', `No ${model.key} with key ${canonical ?? JSON.stringify(key)}.`, {
        table: model.key,
        keys: [key],
      })
    return found[0]
  }

  /**
   * Tracks a row read elsewhere (e.g. with Kysely) as a managed entity, or returns the entity already
   * managed for its key. `row` must hold every column of the table, as the database holds them.
   */
  merge(table: string, row: Readonly<Record<string, unknown>>): Entity {
    const model = this.#table(table)
    for (const c of model.columns) {
      if (!(c.name in row)) {
        throw new PipeflushError('INVALID_VALUE', `merge(${model.key}): the row lacks column "${c.name}".`, {
          table: model.key,
          column: c.name,
        })
      }
    }
    const key = rowKey(model, row)
    const known = key === null ? undefined : this.#map.get(model.key, key)
    if (known) return known.entity
    const values = emptyRow()
    for (const c of model.columns) values[c.name] = row[c.name]
    const state = this.#newState(model, values, 'managed', snapshotOf(model, values))
    state.key = key
    this.#map.set(state)
    return state.entity
  }

  /**
   * Inserts `values` into `table`, or on a conflict of the `conflict` columns (a unique constraint or
   * the primary key) updates the `update` columns (default: every supplied column but the conflict
   * and key columns; `[]` means do nothing). Batched per table like inserts, in the same flush. The
   * row is not tracked afterwards. Several upserts of one conflict key in a flush: the last wins.
   *
   * @example
   * em.upsert('reading', { device: 'd1', recorded_at: t, value: 21.5 }, { conflict: ['device', 'recorded_at'] })
   */
  upsert(
    table: string,
    values: Readonly<Record<string, unknown>>,
    options: { readonly conflict: readonly string[]; readonly update?: readonly string[] },
  ): void {
    const model = this.#table(table)
    const row = this.#writableRow(model, values)
    for (const name of [...options.conflict, ...(options.update ?? [])]) {
      if (!model.columnsByName.has(name)) {
        throw new PipeflushError(
          'UNKNOWN_COLUMN',
          `${model.key} has no column "${name}" (in upsert options).`,
          { table: model.key, column: name },
        )
      }
    }
    if (options.conflict.length === 0)
      throw new PipeflushError('INVALID_CONFIG', `upsert(${model.key}): name the conflict columns.`, {
        table: model.key,
      })
    const update =
      options.update ??
      Object.keys(row).filter(
        (c) => !options.conflict.includes(c) && !model.primaryKey.includes(c) && c !== model.versionColumn,
      )
    if (model.versionColumn && row[model.versionColumn] === undefined) row[model.versionColumn] = 1
    const state: EntityState = {
      table: model,
      status: 'new',
      row,
      snapshot: null,
      key: null,
      owner: this,
      entity: row,
    }
    this.#upserts.push({ state, spec: { conflict: [...options.conflict], update: [...update] } })
  }

  /**
   * Marks `entity` for deletion by the next flush (a new entity is simply forgotten).
   *
   * @example
   * em.remove(book)
   */
  remove(entity: Entity): void {
    const state = this.#own(entity)
    if (state.status === 'new') {
      this.#created.delete(state)
      state.status = 'detached'
    } else if (state.status === 'managed') {
      state.status = 'removed'
      this.#removed.add(state)
    }
  }

  /** What the next flush would write, counted. */
  get pending(): { inserts: number; updates: number; deletes: number; upserts: number } {
    const p = this.#pending()
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
    const pending = this.#pending()
    const restore = provisionalIds(flushStates(pending))
    try {
      return planFlush(this.#shared.schema, toChangeSet(pending, this))
    } finally {
      restore()
    }
  }

  /**
   * Writes every pending change in one transaction and returns what it did. With nothing to write it
   * sends nothing. On failure nothing is committed and the unit of work is as before (fix the cause
   * and flush again); the error is a `PipeflushError`.
   *
   * @example
   * const { roundTrips, statements } = await em.flush()
   */
  async flush(): Promise<FlushReport> {
    if (this.#flushing)
      throw new PipeflushError(
        'INVALID_STATE',
        'A flush of this entity manager is already running; await it first.',
      )
    this.#flushing = true
    const started = performance.now()
    const flushId = randomUUID()
    const mode = this.#shared.pipeline
    try {
      const pending = this.#pending()
      const empty =
        pending.inserts.length + pending.updates.length + pending.deletes.length + pending.upserts.length ===
        0
      if (empty) {
        return {
          flushId,
          mode,
          roundTrips: 0,
          statements: 0,
          waves: 0,
          inserted: 0,
          updated: 0,
          deleted: 0,
          upserted: 0,
          idFetch: false,
          cold: false,
          durationMs: performance.now() - started,
        }
      }
      // Plan (validating every value and the insert order) before anything is sent. When ids must be
      // fetched first, validate with placeholder ids now and plan with the real ones after the fetch.
      const need = idNeed(flushStates(pending))
      const missing = this.#shared.ids.missing(need)
      const upsertCount = this.#upserts.length
      // What is sent, per entity: becomes its snapshot once committed (an assignment made while the
      // flush is in flight stays a pending change).
      let sent = new Map<EntityState, Record<string, unknown>>()
      const planNow = (): FlushPlan => {
        const p = planFlush(this.#shared.schema, toChangeSet(pending, this))
        sent = this.#sentValues(pending)
        return p
      }
      let plan: FlushPlan | undefined
      if (missing.size === 0) {
        assignIds(flushStates(pending), need, this.#shared.ids)
        plan = planNow()
      } else {
        const restore = provisionalIds(flushStates(pending))
        try {
          planFlush(this.#shared.schema, toChangeSet(pending, this))
        } finally {
          restore()
        }
      }
      const ctx: ExecuteContext = {
        sql: this.#shared.sql,
        flushId,
        prepare: await this.#prepare(),
        timeoutMs: this.#shared.flushTimeoutMs,
        beginSql: beginSql(this.#shared.flushLog, flushId),
        // Fill the id pool, then take this flush's ids at once (no await in between): concurrent flushes
        // of other entity managers share the pool and may take ids while this one waits for the fetch.
        before:
          missing.size > 0
            ? async (runner) => {
                let trips = 0
                let short = missing
                for (let i = 0; i < 3 && short.size > 0; i++) {
                  trips += await this.#shared.ids.fill(runner, short)
                  short = this.#shared.ids.missing(need)
                }
                assignIds(flushStates(pending), need, this.#shared.ids)
                return trips
              }
            : undefined,
        makePlan: () => plan ?? planNow(),
      }
      const result: ExecuteResult = await (mode === 'off'
        ? runOff(ctx)
        : mode === 'waves'
          ? runWaves(ctx)
          : runBurst(ctx))
      this.#applyFlushed(pending, sent, upsertCount)
      const statements = result.plan.waves.reduce((n, w) => n + w.length, 0)
      return {
        flushId,
        mode,
        roundTrips: result.roundTrips,
        statements,
        waves: result.plan.waves.length,
        inserted: pending.inserts.length,
        updated: pending.updates.length,
        deleted: pending.deletes.length,
        upserted: pending.upserts.length,
        idFetch: missing.size > 0,
        cold: result.cold,
        durationMs: performance.now() - started,
      }
    } finally {
      this.#flushing = false
    }
  }

  /** Forgets every entity (they become detached) and every pending change. */
  clear(): void {
    for (const s of [...this.#map.values(), ...this.#created]) s.status = 'detached'
    this.#map.clear()
    this.#created.clear()
    this.#removed.clear()
    this.#touched.clear()
    this.#watch.clear()
    this.#upserts.length = 0
  }

  /** `new`, `managed`, `removed` or `detached`; undefined for objects that are not entities of this manager. */
  stateOf(entity: unknown): 'new' | 'managed' | 'removed' | 'detached' | undefined {
    const s = stateOf(entity)
    return s && s.owner === this ? s.status : undefined
  }

  /** The table key of an entity of this manager. */
  tableOf(entity: Entity): string {
    return this.#own(entity).table.key
  }

  #table(table: string): TableModel {
    const model = this.#shared.schema.tables.get(table)
    if (!model) {
      const known = [...this.#shared.schema.tables.keys()].slice(0, 30).join(', ')
      throw new PipeflushError('UNKNOWN_TABLE', `Unknown table "${table}" (known: ${known}).`, { table })
    }
    if (model.primaryKey.length === 0) {
      throw new PipeflushError(
        'UNSUPPORTED_TABLE',
        `Table ${model.key} has no primary key: pipeflush cannot track its rows.`,
        { table },
      )
    }
    return model
  }

  /** A copy of `values` whose every column exists and is writable (not generated). */
  #writableRow(model: TableModel, values: Readonly<Record<string, unknown>>): Record<string, unknown> {
    const row = emptyRow()
    for (const [name, value] of Object.entries(values)) {
      writableColumn(model, name)
      row[name] = value
    }
    return row
  }

  #own(entity: unknown): EntityState {
    const state = stateOf(entity)
    if (!state || state.owner !== this) {
      throw new PipeflushError(
        'INVALID_STATE',
        'Not an entity of this entity manager (create, find or load it with this one).',
      )
    }
    return state
  }

  #newState(
    table: TableModel,
    row: Record<string, unknown>,
    status: EntityState['status'],
    snapshot: Record<string, unknown> | null,
  ): EntityState {
    const state: EntityState = { table, status, row, snapshot, key: null, owner: this, entity: row }
    makeEntity(state, (s) => {
      if (s.status === 'managed') this.#touched.add(s)
    })
    if (status === 'managed' && hasMutableColumns(table)) this.#watch.add(state)
    return state
  }

  #hydrate(table: TableModel, raw: Readonly<Record<string, string | null>>): EntityState {
    const values = emptyRow()
    table.columns.forEach((c, i) => {
      values[c.name] = decodeValue(raw[`c${i}`] ?? null, c, { table: table.key })
    })
    const key = rowKey(table, values)
    const known = key === null ? undefined : this.#map.get(table.key, key)
    if (known) return known
    const state = this.#newState(table, values, 'managed', snapshotOf(table, values))
    state.key = key
    this.#map.set(state)
    return state
  }

  #pending(): PendingChanges {
    const updates: { state: EntityState; changed: string[] }[] = []
    for (const s of new Set([...this.#touched, ...this.#watch])) {
      if (s.status !== 'managed') continue
      const changed = changedColumns(s, this)
      if (changed.length > 0) updates.push({ state: s, changed })
    }
    return {
      inserts: [...this.#created],
      updates,
      deletes: [...this.#removed],
      upserts: this.#dedupedUpserts(),
    }
  }

  /** Upserts with one row per (table, conflict columns, conflict values): the last one wins. */
  #dedupedUpserts(): { state: EntityState; spec: UpsertSpec }[] {
    const byKey = new Map<string, { state: EntityState; spec: UpsertSpec }>()
    for (const u of this.#upserts) {
      const values = resolvedValues(u.state, this, u.spec.conflict)
      const texts = u.spec.conflict.map((c) =>
        encodeValue(values[c], u.state.table.columnsByName.get(c)!, { table: u.state.table.key }),
      )
      byKey.set(JSON.stringify([u.state.table.key, u.spec.conflict, texts]), u)
    }
    return [...byKey.values()]
  }

  /** The row of every inserted or updated entity as the flush sends it, references resolved. */
  #sentValues(pending: PendingChanges): Map<EntityState, Record<string, unknown>> {
    const out = new Map<EntityState, Record<string, unknown>>()
    for (const s of pending.inserts) out.set(s, snapshotOf(s.table, { ...s.row, ...resolvedValues(s, this) }))
    for (const { state, changed } of pending.updates) {
      const values = { ...state.snapshot, ...resolvedValues(state, this, changed) }
      const version = state.table.versionColumn
      if (version) values[version] = Number(state.snapshot?.[version]) + 1
      out.set(state, snapshotOf(state.table, values))
    }
    return out
  }

  /**
   * After a commit: new entities become managed, updated ones take what was sent as their snapshot
   * (an entity given as a foreign-key value is replaced by its id, unless reassigned meanwhile),
   * removed ones are forgotten. Changes made while the flush was in flight stay pending.
   */
  #applyFlushed(
    pending: PendingChanges,
    sent: ReadonlyMap<EntityState, Record<string, unknown>>,
    upsertCount: number,
  ): void {
    const settle = (s: EntityState) => {
      const snapshot = sent.get(s)!
      for (const c of s.table.columns) {
        const now = s.row[c.name]
        if (stateOf(now) && sameValue(resolveReference(now, c, s.table, this), snapshot[c.name], c))
          s.row[c.name] = snapshot[c.name]
      }
      const version = s.table.versionColumn
      if (version) s.row[version] = snapshot[version]
      s.snapshot = snapshot
    }
    for (const s of pending.inserts) {
      settle(s)
      s.status = 'managed'
      s.key = rowKey(s.table, s.row)
      this.#created.delete(s)
      this.#map.set(s)
      this.#touched.add(s)
      if (hasMutableColumns(s.table)) this.#watch.add(s)
    }
    for (const { state } of pending.updates) settle(state)
    for (const s of pending.deletes) {
      s.status = 'detached'
      this.#removed.delete(s)
      this.#map.delete(s)
      this.#watch.delete(s)
    }
    for (const s of this.#touched) {
      if (s.status !== 'managed' || changedColumns(s, this).length === 0) this.#touched.delete(s)
    }
    this.#upserts.splice(0, upsertCount)
  }
}

const DEFAULT_FLUSH_TIMEOUT_MS = 30_000

function checkTimeout(ms: number): number {
  if (typeof ms !== 'number' || Number.isNaN(ms) || ms <= 0) {
    throw new PipeflushError(
      'INVALID_CONFIG',
      `flushTimeoutMs must be a positive number of milliseconds (or Infinity), not ${String(ms)}.`,
    )
  }
  return ms
}

/** The new rows of a flush, inserts then upserts: the rows that may need ids. */
function flushStates(pending: PendingChanges): EntityState[] {
  return [...pending.inserts, ...pending.upserts.map((u) => u.state)]
}
