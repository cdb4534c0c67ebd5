import type { Entity as CoreEntity, EntityManager, FlushHooks, FlushReport } from '@pipeflush/core'
import type { PgTable } from 'drizzle-orm/pg-core'
import { clientValue, type OnUpdate } from './defaults.ts'
import type { DrizzleEntityManager } from './entity-manager.ts'
import type { ColumnKey, Entity, TableAt, TableKey } from './types.ts'

/** What changed since the previous `beforeFlush` run of this flush (see `BeforeFlushChanges`). */
export interface TypedBeforeFlushChanges {
  readonly created: readonly object[]
  readonly updated: readonly object[]
  readonly removed: readonly object[]
  readonly upserted: readonly object[]
  readonly run: number
}

/** The hooks of table `T` (see `TableHooks` of `@pipeflush/core`), typed by its definition. */
export interface TypedTableHooks<S, T extends PgTable> {
  readonly beforeCreate?:
    | ((entity: Entity<T>, em: DrizzleEntityManager<S>) => void | Promise<void>)
    | undefined
  readonly beforeUpdate?:
    | ((
        entity: Entity<T>,
        em: DrizzleEntityManager<S>,
        changed: readonly ColumnKey<T>[],
      ) => void | Promise<void>)
    | undefined
  readonly beforeUpsert?:
    | ((entity: Entity<T>, em: DrizzleEntityManager<S>) => void | Promise<void>)
    | undefined
}

/**
 * Flush hooks typed by the schema object `S`: the same hooks, order and errors as `FlushHooks` of
 * `@pipeflush/core`, with typed entities and entity managers, table hooks by the table's key in the
 * schema object. Narrow an entity with `em.is(entity, books)`. Columns with a `$onUpdate` get their
 * value before the table's `beforeUpdate` runs (which may still assign them).
 *
 * @example
 * const hooks: TypedFlushHooks<typeof schema> = {
 *   beforeFlush(em, { created }) {
 *     for (const e of created) if (em.is(e, orders)) em.create(outbox, { topic: 'order.created', orderId: e })
 *   },
 *   tables: { books: { beforeUpdate: (book) => { book.updatedAt = new Date() } } },
 * }
 */
export interface TypedFlushHooks<S> {
  readonly beforeFlush?:
    | ((em: DrizzleEntityManager<S>, changes: TypedBeforeFlushChanges) => void | Promise<void>)
    | undefined
  readonly tables?: {
    readonly [K in TableKey<S>]?: TypedTableHooks<S, TableAt<S, K>>
  }
  readonly afterCommit?:
    | ((report: FlushReport, em: DrizzleEntityManager<S>) => void | Promise<void>)
    | undefined
}

type Untyped = (...args: unknown[]) => void | Promise<void>

/**
 * `hooks` as `@pipeflush/core` calls them: each core entity manager handed to a hook is replaced by
 * its Drizzle entity manager (`typed`), entities pass as they are (they are the same objects). A
 * table with `$onUpdate` columns gets a `beforeUpdate` that assigns each such column the flush does
 * not already write, then calls the application's.
 *
 * Drizzle users' hooks take the entity manager they know, and their `$onUpdate` runs as in Drizzle.
 */
export function coreHooks<S>(
  hooks: TypedFlushHooks<S> | undefined,
  onUpdate: OnUpdate,
  typed: (em: EntityManager) => DrizzleEntityManager<S>,
): FlushHooks | undefined {
  if (hooks !== undefined && (typeof hooks !== 'object' || hooks === null)) return hooks as FlushHooks // core reports it
  if (hooks === undefined && onUpdate.size === 0) return undefined
  const { beforeFlush, afterCommit, tables } = (hooks ?? {}) as Record<string, unknown>
  const out: Record<string, unknown> = { ...hooks }
  if (typeof beforeFlush === 'function') {
    out['beforeFlush'] = (em: EntityManager, changes: unknown) => (beforeFlush as Untyped)(typed(em), changes)
  }
  if (typeof afterCommit === 'function') {
    out['afterCommit'] = (report: FlushReport, em: EntityManager) =>
      (afterCommit as Untyped)(report, typed(em))
  }
  if (tables !== undefined && (typeof tables !== 'object' || tables === null || Array.isArray(tables))) {
    return out as FlushHooks // core reports it
  }
  const byTable: Record<string, unknown> = {}
  for (const [table, own] of Object.entries((tables ?? {}) as Record<string, unknown>)) {
    if (typeof own !== 'object' || own === null) {
      byTable[table] = own
      continue
    }
    const wrapped: Record<string, unknown> = { ...own }
    for (const [name, fn] of Object.entries(own)) {
      if (typeof fn === 'function') {
        wrapped[name] = (entity: CoreEntity, em: EntityManager, ...rest: unknown[]) =>
          (fn as Untyped)(entity, typed(em), ...rest)
      }
    }
    byTable[table] = wrapped
  }
  for (const [table, columns] of onUpdate) {
    const own = (byTable[table] ?? {}) as Record<string, unknown>
    const then = own['beforeUpdate'] as Untyped | undefined
    byTable[table] = {
      ...own,
      beforeUpdate(entity: CoreEntity, em: EntityManager, changed: readonly string[]) {
        for (const [property, fn] of columns)
          if (!changed.includes(property)) entity[property] = clientValue(table, property, fn, '$onUpdate')
        return then?.(entity, em, changed)
      },
    }
  }
  out['tables'] = byTable
  return out as FlushHooks
}
