import type { Entity } from '@pipeflush/core'
import type { ConduitEm } from './types.ts'

/**
 * `value` (what a request's work returned) with each entity of `em` in it, new or managed, replaced
 * by its row read again in `fresh`, all in one batch (one round trip). For a flush whose outcome was
 * unknown and which committed (the flush log says so): a failed flush leaves the entities as they
 * were, so they lack what the server filled in (`created_at`, `updated_at`), and the answer is built
 * from the rows as stored. Arrays and plain objects are looked into; anything else is kept as it is.
 *
 * @example
 * if (await em.wasCommitted(flushId)) return reloadStored(em, factory.em(), view)
 */
export async function reloadStored<T>(em: ConduitEm, fresh: ConduitEm, value: T): Promise<T> {
  const loads = new Map<Entity, Promise<Entity>>()
  const collect = (v: unknown): void => {
    if (typeof v !== 'object' || v === null) return
    const state = em.stateOf(v)
    if (state !== undefined) {
      if ((state === 'new' || state === 'managed') && !loads.has(v as Entity))
        loads.set(v as Entity, fresh.core.load(em.core.tableOf(v as Entity), keyOf(em, v as Entity)))
      return
    }
    if (Array.isArray(v)) for (const item of v) collect(item)
    else if (isPlain(v)) for (const item of Object.values(v)) collect(item)
  }
  collect(value)
  const loaded = new Map<Entity, Entity>()
  await Promise.all([...loads].map(async ([entity, load]) => loaded.set(entity, await load)))
  const rebuild = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null) return v
    if (em.stateOf(v) !== undefined) return loaded.get(v as Entity) ?? v
    if (Array.isArray(v)) return v.map(rebuild)
    if (isPlain(v)) return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, rebuild(item)]))
    return v
  }
  return rebuild(value) as T
}

/** `entity`'s primary key as `load` takes it: the value, or an object of the key columns. */
function keyOf(em: ConduitEm, entity: Entity): unknown {
  const table = em.core.schema.tables.get(em.core.tableOf(entity))
  const columns = table?.primaryKey ?? []
  const row = entity as Record<string, unknown>
  if (columns.length === 1) return row[columns[0]!]
  return Object.fromEntries(columns.map((c) => [c, row[c]]))
}

function isPlain(v: object): v is Record<string, unknown> {
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}
