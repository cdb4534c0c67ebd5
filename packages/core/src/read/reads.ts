import { knownOptions, recordArgument } from '../arguments.ts'
import type { RowLock } from '../connection/held-transaction.ts'
import type { Row } from '../drivers/driver.ts'
import { errors, isPipeflushError } from '../errors.ts'
import type { SchemaModel, TableModel } from '../model/model.ts'
import { columnOf, readableTable } from '../schema/checks.ts'
import { columnSql } from '../schema/column-sql.ts'
import type { Entity, EntityState } from '../track/entity-state.ts'
import { keyWhere, rowKey } from '../track/keys.ts'
import type { UnitOfWork } from '../unit-of-work/unit-of-work.ts'
import { normalizeKeyValue } from '../values/index.ts'
import { describeKeyText, describeValue } from '../values/location.ts'
import { decodeRow } from './decode-row.ts'
import { type GraphRoot, graphLevels, type OrderBy, type With } from './graph.ts'
import { graphLoad } from './graph-load.ts'
import { checkLoadKey, KeyLoads } from './key-loads.ts'
import { checkSelectedColumns, ownStatement } from './own-sql.ts'
import { type BatchItem, ReadBatch } from './read-batch.ts'
import type { ReadContext } from './read-router.ts'
import type { ReadStatement } from './read-statement.ts'
import { resolveWhere } from './resolve-where.ts'
import { keySetSql, keyWhereT0, loadKeyAt, textParams, type Where, whereSql } from './select-sql.ts'
import { sendReads } from './send-reads.ts'

/** What a read loads besides its rows, and how it reads them. */
export interface ReadOptions {
  /**
   * Relations of the rows, to any depth, each filtered, ordered, limited or counted as it says (see
   * {@link With}), in the same round trip.
   */
  readonly with?: With | undefined
  /**
   * Locks the rows read (`for update` / `for share`, every level of a `with` tree) in a transaction
   * the unit of work holds until its flush commits it (see `HeldTransaction`): BEGIN goes with
   * the first locking read, the flush without one.
   */
  readonly lock?: RowLock | undefined
}

/** A find's options: a read's, and which rows of those matching (ordered, then a window of them). */
export interface FindOptions extends ReadOptions {
  /** The rows in this order (their primary key breaks ties; else by primary key). */
  readonly orderBy?: OrderBy | undefined
  /** At most this many rows. */
  readonly limit?: number | undefined
  /** After skipping this many. */
  readonly offset?: number | undefined
}

/**
 * The reads of one unit of work: `find`, `load`, `populate` and rows selected by the application's
 * own SQL, every one started in the same tick sent in one round trip on one connection (see
 * {@link ReadBatch}), loads of one table by key gathered into one select, a graph of relations in the
 * same message as its roots. Rows land in the unit of work's identity map.
 */
export class UnitOfWorkReads {
  readonly #uow: UnitOfWork
  readonly #schema: SchemaModel
  readonly #batch: ReadBatch
  readonly #context: ReadContext

  constructor(uow: UnitOfWork, schema: SchemaModel, context: ReadContext) {
    this.#uow = uow
    this.#schema = schema
    this.#context = context
    this.#batch = new ReadBatch(context)
  }

  /**
   * One statement on the primary, outside the unit of work's batches and its locking transaction
   * (the flush log's `wasCommitted`, whose insert must commit): its rows. One round trip.
   */
  async onPrimary(statement: ReadStatement, what: string): Promise<readonly Row[]> {
    const { connections } = this.#context
    const primary = { source: connections.pool, driver: connections.driver }
    const [rows] = await sendReads(this.#context, primary, [statement], what, {})
    return rows ?? []
  }

  /**
   * The rows of `table` matching `where` (and their relations in `options.with`), tracked; ordered,
   * limited and offset as `options` say.
   */
  async find(table: string, where: Where = {}, options: FindOptions = {}): Promise<Entity[]> {
    const model = readableTable(this.#schema, table)
    checkReadOptions(options, FIND_OPTIONS, `find(${model.key})`)
    const resolving = this.#resolveWhere(model, where)
    const resolved = resolving instanceof Promise ? await resolving : resolving
    const { sql, params } = whereSql(model, resolved, 't0')
    const root: GraphRoot = {
      where: sql,
      params: textParams(params),
      orderBy: rootOrder(model, options.orderBy),
      limit: windowOption(options.limit, 'limit'),
      offset: windowOption(options.offset, 'offset'),
    }
    return this.#graph(model, root, withOf(options), lockOf(options))
  }

  /**
   * The row of `table` with primary key `key`: from the identity map when managed and nothing is to
   * be loaded with it (no query), else read (with the other loads of `table` in this tick). Throws
   * `NOT_FOUND`.
   */
  async load(table: string, key: unknown, options: ReadOptions = {}): Promise<Entity> {
    const model = readableTable(this.#schema, table)
    checkReadOptions(options, READ_OPTIONS, `load(${model.key})`)
    if (model.primaryKey.length === 0) throw errors.noKeyToLoad(model.key, model.kind)
    const where = keyWhere(model, key)
    const canonical = givenKey(model, where)
    const known = canonical === null ? undefined : this.#uow.get(model.key, canonical)
    if (known?.status === 'removed') {
      throw errors.notFound(model.key, canonical, describeKeyText(String(canonical)), true)
    }
    const tree = withOf(options)
    const lock = lockOf(options)
    // By key, with the other loads of the table in this tick (locking ones in a select of their own,
    // which locks its rows in key order); with a tree, or a lock on a key of no canonical form, alone.
    if (Object.keys(tree).length > 0 || (lock !== undefined && canonical === null)) {
      const { sql, params } = keyWhereT0(model, where)
      const [found] = await this.#graph(model, { where: sql, params: textParams(params) }, tree, lock)
      if (found) return found
    } else {
      // A lock is taken by a query, even on a row the unit of work holds (its values are kept).
      if (lock === undefined && known?.status === 'managed') return known.entity
      if (canonical !== null) checkLoadKey(model, where)
      const group = lock === undefined ? `load:${model.key}` : `load:${model.key}:for ${lock}`
      const loads = this.#batch.grouped(group, () => new KeyLoads(model, lock))
      const since = this.#uow.readStarts()
      try {
        const row = canonical === null ? undefined : await loads.add(canonical, where)
        if (row !== undefined) {
          const state = this.#uow.add(model, row, 'managed', since)
          if (state.status === 'managed' || state.status === 'new') return state.entity
        }
      } finally {
        this.#uow.readEnds()
      }
    }
    throw errors.notFound(
      model.key,
      key,
      canonical === null ? describeValue(key) : describeKeyText(canonical),
    )
  }

  /**
   * Loads the relations of `tree` for `entities` (managed entities of this unit of work, of one table
   * or several), in one round trip with the other reads of this tick.
   */
  async populate(entities: Entity | readonly Entity[], tree: With): Promise<void> {
    const list = Array.isArray(entities) ? (entities as readonly Entity[]) : [entities as Entity]
    const byTable = new Map<TableModel, EntityState[]>()
    for (const entity of list) {
      const state = this.#uow.own(entity)
      if (state.status !== 'managed') throw errors.notPopulatable(state.table.key, state.status)
      const states = byTable.get(state.table) ?? []
      states.push(state)
      byTable.set(state.table, states)
    }
    const t = withOf({ with: tree })
    await Promise.all(
      [...byTable].map(([table, states]) => {
        const { sql, params } = keySetSql(
          table,
          states.map((s) => s.row),
          't0',
          1,
        )
        return this.#graph(table, { where: sql, params: textParams(params) }, t)
      }),
    )
  }

  /**
   * The rows of `table` selected by `statement` (every column as text, aliased `c0, c1...` in table
   * order, as `find` selects them), tracked, in the statement's order, with their relations in
   * `options.with` (each level selected through the statement's rows), with the other reads of this
   * tick. The statement is checked first (see `ownStatement`), and its rows before any is tracked
   * (`checkSelectedColumns`): `INVALID_VALUE`.
   */
  async rows(table: string, statement: ReadStatement, options: ReadOptions = {}): Promise<Entity[]> {
    const model = readableTable(this.#schema, table)
    checkReadOptions(options, READ_OPTIONS, `loadRows(${model.key})`)
    const own = { ...ownStatement(statement, `loadRows(${model.key})`), table: model.key }
    const tree = withOf(options)
    const lock = lockOf(options)
    if (Object.keys(tree).length > 0 || lock !== undefined)
      return this.#graph(model, { statement: own }, tree, lock)
    const since = this.#uow.readStarts()
    try {
      const [rows] = await this.#batch.read([own], `Reading ${model.key}`)
      checkSelectedColumns(model, rows ?? [])
      return this.#track(model, rows ?? [], since)
    } finally {
      this.#uow.readEnds()
    }
  }

  /**
   * The rows `statement` (the application's own SQL, checked first: see `ownStatement`) selects,
   * untracked, as the driver gives them (its type parsers), with the other reads of this tick:
   * aggregates, scalars, anything beside the entities.
   */
  async select(statement: ReadStatement): Promise<readonly Row[]> {
    const [rows] = await this.#batch.read([ownStatement(statement, 'select')], 'A select')
    return rows ?? []
  }

  /**
   * `where` resolved (see `resolveWhere`); one that gives a new entity without its key yet, while the
   * unit's flush is being sent, once that flush is over (it assigns the key; the read would wait for
   * it anyway: see `UnitConnections.sending`).
   */
  #resolveWhere(model: TableModel, where: Where): Where | Promise<Where> {
    try {
      return resolveWhere(model, where, this.#uow)
    } catch (e) {
      const flush = this.#context.connections.sending
      if (flush === undefined || !isPipeflushError(e, 'INVALID_STATE')) throw e
      return flush.then(() => resolveWhere(model, where, this.#uow))
    }
  }

  #graph(model: TableModel, root: GraphRoot, tree: With, lock?: RowLock): Promise<Entity[]> {
    const resolve = (table: TableModel, where: Where) => resolveWhere(table, where, this.#uow)
    const all = graphLevels(this.#schema, model, root, tree, resolve)
    // A count locks nothing (and `for update` is refused beside `group by`).
    const levels =
      lock === undefined
        ? all
        : all.map((l) =>
            l.role === 'counts'
              ? l
              : {
                  ...l,
                  statement: { ...l.statement, text: `${l.statement.text} for ${lock}`, locking: true },
                },
          )
    const uow = this.#uow
    return new Promise((resolve, reject) => {
      // Over once: when it settled, or failed (a settling that throws fails it after).
      let over = false
      const end = () => {
        if (over) return false
        over = true
        uow.readEnds()
        return true
      }
      const item = graphLoad(
        uow,
        levels,
        `Reading ${model.key}`,
        uow.readStarts(),
        (roots) => {
          if (end()) resolve(roots)
        },
        (error) => {
          if (end()) reject(error)
        },
      )
      this.#batch.add('statement' in root ? checkingRoots(item, model) : item)
    })
  }

  #track(model: TableModel, rows: readonly Readonly<Record<string, unknown>>[], since: number): Entity[] {
    const out: Entity[] = []
    for (const raw of rows) {
      const state = this.#uow.add(model, decodeRow(model, raw), 'managed', since)
      if (state.status === 'managed' || state.status === 'new') out.push(state.entity)
    }
    return out
  }
}

/**
 * `item`, a graph load whose roots the application's select gives (answered first), with those rows
 * checked before any row is tracked (see `checkSelectedColumns`).
 */
function checkingRoots(item: BatchItem, table: TableModel): BatchItem {
  return {
    ...item,
    settle: (rowSets) => {
      checkSelectedColumns(table, rowSets[0] ?? [])
      item.settle(rowSets)
    },
  }
}

/**
 * The canonical key (see `rowKey`) of the key `where` given to load; a value its column cannot take
 * is `INVALID_VALUE` naming it as the key given to load (not as a row's).
 */
function givenKey(table: TableModel, where: Where): string | null {
  try {
    return rowKey(table, where)
  } catch (e) {
    // The value at fault, located: off the path of a good key.
    for (const name of table.primaryKey)
      normalizeKeyValue(where[name], table.columnsByName.get(name)!, loadKeyAt(table))
    throw e
  }
}

/** The options of a read ({@link ReadOptions}), and of a find ({@link FindOptions}). */
const READ_OPTIONS: readonly string[] = ['with', 'lock']
const FIND_OPTIONS: readonly string[] = ['with', 'lock', 'orderBy', 'limit', 'offset']

/** A read's options are an object naming only `names`: else `INVALID_VALUE`, nothing sent. */
function checkReadOptions(options: unknown, names: readonly string[], what: string): void {
  knownOptions(recordArgument(options, `${what}: the options`, 'INVALID_VALUE'), names, what, 'INVALID_VALUE')
}

/** The `with` of read options, checked (an object of relations). */
function withOf(options: ReadOptions): With {
  const tree = (options as { with?: unknown } | undefined)?.with
  if (tree === undefined) return {}
  if (typeof tree !== 'object' || tree === null || Array.isArray(tree))
    throw errors.invalidWith('with', describeValue(tree))
  return tree as With
}

/** The `orderBy` of find options as an `order by` list on the roots (alias `t0`), checked. */
function rootOrder(table: TableModel, orderBy: unknown): string | undefined {
  if (orderBy === undefined) return undefined
  const parts = Array.isArray(orderBy) ? orderBy : [orderBy]
  const terms: string[] = []
  const named = new Set<string>()
  for (const part of parts) {
    if (typeof part !== 'object' || part === null || Array.isArray(part))
      throw errors.invalidWithOption(
        'orderBy',
        `must be { column: 'asc' | 'desc' } or an array of such, not ${describeValue(part)}`,
      )
    for (const [column, direction] of Object.entries(part)) {
      columnOf(table, column)
      if (direction !== 'asc' && direction !== 'desc')
        throw errors.invalidWithOption(
          `orderBy.${column}`,
          `must be 'asc' or 'desc', not ${describeValue(direction)}`,
        )
      named.add(column)
      terms.push(`t0.${columnSql(table, column)}${direction === 'desc' ? ' desc' : ''}`)
    }
  }
  for (const k of table.primaryKey) if (!named.has(k)) terms.push(`t0.${columnSql(table, k)}`)
  return terms.join(', ')
}

/** A find's `limit` or `offset`, checked: a whole number of rows. */
function windowOption(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw errors.invalidWithOption(name, `must be a whole number of rows, not ${describeValue(value)}`)
  return value
}

/** The `lock` of read options, checked. */
function lockOf(options: ReadOptions): RowLock | undefined {
  const lock = (options as { lock?: unknown } | undefined)?.lock
  if (lock === undefined || lock === 'update' || lock === 'share') return lock
  throw errors.invalidLock(describeValue(lock))
}
