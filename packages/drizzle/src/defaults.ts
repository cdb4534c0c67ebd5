import type { SchemaTables } from './schema/tables.ts'

/** What `$onUpdate` fills for each table (by key): its columns' functions by property. */
export type OnUpdate = ReadonlyMap<string, ReadonlyMap<string, () => unknown>>

/**
 * Drizzle's client-side defaults of a schema's tables: `$defaultFn` (and `$onUpdate` where a column
 * has no other default, as Drizzle's inserts do) filled at `create` and `upsert` for the properties
 * the values leave out; `$onUpdate` on each update (see `typed-hooks.ts`).
 *
 * A row created through pipeflush gets the values Drizzle's insert would have given it.
 */
export class ClientDefaults {
  readonly #atCreate = new Map<string, ReadonlyMap<string, () => unknown>>()
  /** `$onUpdate` functions by table key and property. */
  readonly onUpdate: OnUpdate

  constructor(tables: SchemaTables) {
    const onUpdate = new Map<string, ReadonlyMap<string, () => unknown>>()
    for (const entry of tables.all()) {
      const atCreate = new Map<string, () => unknown>()
      const atUpdate = new Map<string, () => unknown>()
      for (const [property, column] of entry.columns) {
        if (column.defaultFn !== undefined) atCreate.set(property, column.defaultFn as () => unknown)
        if (column.onUpdateFn !== undefined) {
          atUpdate.set(property, column.onUpdateFn as () => unknown)
          if (column.defaultFn === undefined && column.default === undefined)
            atCreate.set(property, column.onUpdateFn as () => unknown)
        }
      }
      if (atCreate.size > 0) this.#atCreate.set(entry.key, atCreate)
      if (atUpdate.size > 0) onUpdate.set(entry.key, atUpdate)
    }
    this.onUpdate = onUpdate
  }

  /** `values` with the defaults of table `key` it leaves out filled in (itself when there are none). */
  filled(key: string, values: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
    const defaults = this.#atCreate.get(key)
    if (defaults === undefined || typeof values !== 'object' || values === null) return values
    let out: Record<string, unknown> | undefined
    for (const [property, fn] of defaults) {
      if (values[property] !== undefined) continue
      out ??= { ...values }
      out[property] = fn()
    }
    return out ?? values
  }
}
