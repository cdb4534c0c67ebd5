import { errors } from '../errors.ts'
import type { FlushReport } from '../flush/flush-report.ts'
import type { SchemaModel } from '../model/model.ts'
import type { Entity } from '../track/entity-state.ts'
import { describeValue } from '../values/location.ts'

/**
 * What changed since the previous run of `beforeFlush` in this flush (the first run: every pending
 * change). Each entity shows up once per flush in each list.
 */
export interface BeforeFlushChanges {
  /** New entities, in creation order. */
  readonly created: readonly Entity[]
  /** Managed entities with changed columns. */
  readonly updated: readonly Entity[]
  /** Managed entities marked for deletion. */
  readonly removed: readonly Entity[]
  /**
   * Entities of `em.upsert`, in upsert order (the last upsert of a conflict key only: the one sent).
   * Whether each inserts or finds its row is known after the flush, not here.
   */
  readonly upserted: readonly Entity[]
  /** 1 for the first run of this flush, 2 for the next... */
  readonly run: number
}

/**
 * Hooks of one table, keyed by table key in {@link FlushHooks.tables}. `M` is the entity manager the
 * hooks are given (the package's index names it; this module does not point up at the facade).
 */
export interface TableHooks<E = Entity, M = unknown> {
  /** Called once per flush for each new entity of the table; may change it and the unit of work. */
  beforeCreate?(entity: E, em: M): void | Promise<void>
  /**
   * Called once per flush for each changed (not removed) managed entity of the table, with the
   * columns changed so far; may change it (e.g. `updated_at`) and the unit of work.
   */
  beforeUpdate?(entity: E, em: M, changed: readonly string[]): void | Promise<void>
  /**
   * Called once per flush for each upserted entity of the table (`em.upsert`: inserted or found, which
   * only the flush tells); may change it (what it inserts, and updates where the upsert's `update`
   * names the column) and the unit of work.
   */
  beforeUpsert?(entity: E, em: M): void | Promise<void>
}

/**
 * Code run as part of every flush, in this order:
 * 1. `beforeFlush(em, changes)`, then `beforeCreate` / `beforeUpsert` / `beforeUpdate` for each entity
 *    not seen yet by them in this flush, in creation order: one round. A round that changed the unit
 *    of work (created, assigned, removed, upserted) is followed by another, up to
 *    {@link MAX_HOOK_ROUNDS} rounds, then `HOOK_LOOP`. All of it runs before planning and before a connection is reserved.
 * 2. The flush itself.
 * 3. After the commit: `afterCommit(report, em)`. Its errors do not undo the commit: the flush resolves
 *    and they are in `report.afterCommitErrors`.
 * A hook that throws (or a flush that fails) fails the flush with `HOOK_FAILED` (the hook's error as
 * `cause`) and nothing sent, and puts the unit of work back as it was before the hooks ran, so
 * flushing again runs them again once.
 *
 * @example
 * await EntityManager.connect(sql, {
 *   hooks: {
 *     beforeFlush(em, { created }) {
 *       for (const order of created.filter((e) => em.tableOf(e) === 'orders'))
 *         em.create('outbox', { topic: 'order.created', payload: { id: order.id } })
 *     },
 *     tables: { book: { beforeUpdate: (book) => { book.updated_at = new Date() } } },
 *     afterCommit: (report) => console.log(report.inserted),
 *   },
 * })
 */
export interface FlushHooks<E = Entity, M = unknown, R = FlushReport> {
  beforeFlush?(em: M, changes: BeforeFlushChanges): void | Promise<void>
  readonly tables?: Readonly<Record<string, TableHooks<E, M>>> | undefined
  afterCommit?(report: R, em: M): void | Promise<void>
}

/** Rounds of hooks one flush runs at most before failing with `HOOK_LOOP`. */
export const MAX_HOOK_ROUNDS = 10

function checkFunction(value: unknown, name: string): void {
  if (value !== undefined && typeof value !== 'function') {
    throw errors.invalidConfig(`hooks.${name} must be a function, not ${describeValue(value)}.`)
  }
}

/**
 * The `hooks` option, checked: functions where functions go, and (when `schema` is given) tables of
 * the schema; undefined when there is none.
 *
 * A misspelt hook or table is `INVALID_CONFIG` at connect, not a hook silently never called.
 */
export function flushHooksOption(value: unknown, schema: SchemaModel | undefined): FlushHooks | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw errors.invalidConfig(`hooks must be an object of functions, not ${describeValue(value)}.`)
  }
  const hooks = value as Record<string, unknown>
  for (const name of Object.keys(hooks)) {
    if (!['beforeFlush', 'tables', 'afterCommit'].includes(name)) {
      throw errors.invalidConfig(`hooks.${name} is not a hook (beforeFlush, tables, afterCommit).`)
    }
  }
  checkFunction(hooks.beforeFlush, 'beforeFlush')
  checkFunction(hooks.afterCommit, 'afterCommit')
  const tables = hooks.tables
  if (tables !== undefined) {
    if (typeof tables !== 'object' || tables === null || Array.isArray(tables)) {
      throw errors.invalidConfig(`hooks.tables must be an object by table key, not ${describeValue(tables)}.`)
    }
    for (const [table, own] of Object.entries(tables)) {
      if (schema !== undefined && !schema.tables.has(table)) {
        throw errors.invalidConfig(`hooks.tables names "${table}", which is not a table of the schema.`)
      }
      if (typeof own !== 'object' || own === null || Array.isArray(own)) {
        throw errors.invalidConfig(`hooks.tables.${table} must be an object, not ${describeValue(own)}.`)
      }
      for (const [name, fn] of Object.entries(own)) {
        if (name !== 'beforeCreate' && name !== 'beforeUpdate' && name !== 'beforeUpsert') {
          throw errors.invalidConfig(
            `hooks.tables.${table}.${name} is not a table hook (beforeCreate, beforeUpdate, beforeUpsert).`,
          )
        }
        checkFunction(fn, `tables.${table}.${name}`)
      }
    }
  }
  return hooks as FlushHooks
}
