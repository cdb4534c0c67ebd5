import type { Entity, EntityManager, FlushHooks, FlushReport } from '@pipeflush/core'
import type { TypedEntityManager } from './typed-entity-manager.ts'
import type { AnyEntity, ColumnName, TableName, TypedEntity } from './types.ts'

/** What changed since the previous `beforeFlush` run of this flush (see `BeforeFlushChanges`). */
export interface TypedBeforeFlushChanges<DB> {
  readonly created: readonly AnyEntity<DB>[]
  readonly updated: readonly AnyEntity<DB>[]
  readonly removed: readonly AnyEntity<DB>[]
  readonly upserted: readonly AnyEntity<DB>[]
  readonly run: number
}

/** The hooks of table `T`, typed by `DB` (see `TableHooks` of `@pipeflush/core`). */
export interface TypedTableHooks<DB, T extends TableName<DB>> {
  readonly beforeCreate?:
    | ((entity: TypedEntity<DB, T>, em: TypedEntityManager<DB>) => void | Promise<void>)
    | undefined
  readonly beforeUpdate?:
    | ((
        entity: TypedEntity<DB, T>,
        em: TypedEntityManager<DB>,
        changed: readonly ColumnName<DB, T>[],
      ) => void | Promise<void>)
    | undefined
  readonly beforeUpsert?:
    | ((entity: TypedEntity<DB, T>, em: TypedEntityManager<DB>) => void | Promise<void>)
    | undefined
}

/**
 * Flush hooks typed by the Kysely database interface `DB`: the same hooks, order and errors as
 * `FlushHooks` of `@pipeflush/core`, with typed entities and entity managers. A new entity's
 * sequence id is assigned by the flush, after the hooks: refer to it by the entity (a foreign key
 * value), or use uuid keys.
 *
 * @example
 * const hooks: TypedFlushHooks<DB> = {
 *   beforeFlush(em, { created }) {
 *     for (const e of created) if (em.is(e, 'orders')) em.create('outbox', { topic: 'order.created', order_id: e })
 *   },
 *   tables: { book: { beforeUpdate: (book) => { book.updated_at = new Date() } } },
 * }
 */
export interface TypedFlushHooks<DB> {
  readonly beforeFlush?:
    | ((em: TypedEntityManager<DB>, changes: TypedBeforeFlushChanges<DB>) => void | Promise<void>)
    | undefined
  readonly tables?: { readonly [T in TableName<DB>]?: TypedTableHooks<DB, T> } | undefined
  readonly afterCommit?:
    | ((report: FlushReport, em: TypedEntityManager<DB>) => void | Promise<void>)
    | undefined
}

type Untyped = (...args: unknown[]) => void | Promise<void>

/**
 * `hooks` as `@pipeflush/core` calls them: each core entity manager handed to a hook is replaced by
 * its typed entity manager (`typed`), entities pass as they are (they are the same objects).
 *
 * Kysely users' hooks take the typed entity manager they know, not core's.
 */
export function coreHooks<DB>(
  hooks: TypedFlushHooks<DB>,
  typed: (em: EntityManager) => TypedEntityManager<DB>,
): FlushHooks {
  if (typeof hooks !== 'object' || hooks === null) return hooks as FlushHooks // core reports it
  const { beforeFlush, afterCommit, tables } = hooks as Record<string, unknown>
  const out: Record<string, unknown> = { ...hooks }
  if (typeof beforeFlush === 'function') {
    out.beforeFlush = (em: EntityManager, changes: unknown) => (beforeFlush as Untyped)(typed(em), changes)
  }
  if (typeof afterCommit === 'function') {
    out.afterCommit = (report: FlushReport, em: EntityManager) => (afterCommit as Untyped)(report, typed(em))
  }
  if (typeof tables === 'object' && tables !== null && !Array.isArray(tables)) {
    const byTable: Record<string, unknown> = {}
    for (const [table, own] of Object.entries(tables)) {
      if (typeof own !== 'object' || own === null) {
        byTable[table] = own
        continue
      }
      const wrapped: Record<string, unknown> = { ...own }
      for (const [name, fn] of Object.entries(own)) {
        if (typeof fn === 'function') {
          wrapped[name] = (entity: Entity, em: EntityManager, ...rest: unknown[]) =>
            (fn as Untyped)(entity, typed(em), ...rest)
        }
      }
      byTable[table] = wrapped
    }
    out.tables = byTable
  }
  return out as FlushHooks
}
