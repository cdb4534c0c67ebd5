import { is, SQL } from 'drizzle-orm'
import { errors } from './errors.ts'
import type { SchemaTables } from './schema/tables.ts'

/** What `$onUpdate` fills for each table (by key): its columns' functions by property. */
export type OnUpdate = ReadonlyMap<string, ReadonlyMap<string, () => unknown>>

/** A function filling a property at `create`, and which of Drizzle's it is (for errors). */
interface ClientDefault {
  readonly fn: () => unknown
  readonly kind: '$defaultFn' | '$onUpdate'
}

/**
 * Drizzle's client-side defaults of a schema's tables: `$defaultFn` (and `$onUpdate` where a column
 * has no other default, as Drizzle's inserts do) filled at `create` and `upsert` for the properties
 * the values leave out; `$onUpdate` on each update (see `typed-hooks.ts`) and in an upsert's update,
 * as Drizzle's `onConflictDoUpdate` sets it.
 *
 * A row created through pipeflush gets the values Drizzle's insert would have given it. A function
 * answering a Drizzle `sql` expression is `INVALID_VALUE` naming its column: pipeflush writes values.
 */
export class ClientDefaults {
  readonly #atCreate = new Map<string, ReadonlyMap<string, ClientDefault>>()
  /** `$onUpdate` functions by table key and property. */
  readonly onUpdate: OnUpdate

  constructor(tables: SchemaTables) {
    const onUpdate = new Map<string, ReadonlyMap<string, () => unknown>>()
    for (const entry of tables.all()) {
      const atCreate = new Map<string, ClientDefault>()
      const atUpdate = new Map<string, () => unknown>()
      for (const [property, column] of entry.columns) {
        if (column.defaultFn !== undefined)
          atCreate.set(property, { fn: column.defaultFn as () => unknown, kind: '$defaultFn' })
        if (column.onUpdateFn !== undefined) {
          atUpdate.set(property, column.onUpdateFn as () => unknown)
          if (column.defaultFn === undefined && column.default === undefined)
            atCreate.set(property, { fn: column.onUpdateFn as () => unknown, kind: '$onUpdate' })
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
    for (const [property, { fn, kind }] of defaults) {
      if (values[property] !== undefined) continue
      out ??= { ...values }
      out[property] = clientValue(key, property, fn, kind)
    }
    return out ?? values
  }

  /**
   * An upsert's values and options with the defaults of table `key` filled as by {@link filled}, and,
   * unless it updates nothing (`update: []`), each `$onUpdate` property it neither gives nor names as
   * a conflict property given its function's value and updated: Drizzle's `onConflictDoUpdate` sets
   * those columns too. A property a `$defaultFn` filled is inserted, never updated: without `update`,
   * the list is the one core makes of the properties given (all but the conflict ones and `kept`,
   * the table's key and version properties), and the `$onUpdate` ones.
   *
   * @example
   * defaults.upserted('tags', { name: 'x' }, { conflict: ['name'] })
   * // { values: { name: 'x', updatedAt: <$onUpdate's Date> }, options: { conflict: ['name'] } }
   */
  upserted<
    O extends { readonly conflict: readonly string[]; readonly update?: readonly string[] | undefined },
  >(
    key: string,
    values: Readonly<Record<string, unknown>>,
    options: O,
    kept: readonly string[] = [],
  ): { readonly values: Readonly<Record<string, unknown>>; readonly options: O } {
    const given = this.filled(key, values)
    const atUpdate = this.onUpdate.get(key)
    // Options core refuses are left to it (it names what is wrong).
    const asked: unknown = (options as Partial<O> | null)?.update
    const conflict: unknown = (options as Partial<O> | null)?.conflict
    if (typeof given !== 'object' || given === null || !Array.isArray(conflict))
      return { values: given, options }
    // `update: []` as the application gave it: nothing updated, no `$onUpdate` either.
    if (Array.isArray(asked) && asked.length === 0) return { values: given, options }
    let update = asked
    if (asked === undefined && given !== values) {
      // Core's default list, of the properties the application gave (not those a default filled).
      update = Object.keys(values).filter(
        (p) => values[p] !== undefined && !conflict.includes(p) && !kept.includes(p),
      )
      options = { ...options, update }
    }
    if (atUpdate === undefined) return { values: given, options }
    let out: Record<string, unknown> | undefined
    let names: string[] | undefined
    for (const [property, fn] of atUpdate) {
      // Not one the application gave (one `filled` gave, its `$onUpdate` as a default, is updated too).
      if (values[property] !== undefined || conflict.includes(property)) continue
      out ??= { ...given }
      out[property] = clientValue(key, property, fn, '$onUpdate')
      if (Array.isArray(update) && !update.includes(property)) {
        names ??= [...update]
        names.push(property)
      }
    }
    if (out === undefined) return { values: given, options }
    return { values: out, options: names === undefined ? options : { ...options, update: names } }
  }
}

/**
 * What a `$defaultFn` or `$onUpdate` function of `table`'s `property` gives; `INVALID_VALUE` for a
 * Drizzle `sql` expression, which pipeflush cannot write (its statements carry values).
 *
 * @example
 * clientValue('posts', 'updatedAt', () => new Date(), '$onUpdate') // a Date
 */
export function clientValue(table: string, property: string, fn: () => unknown, kind: string): unknown {
  const value = fn()
  if (is(value, SQL)) throw errors.sqlClientDefault(table, property, kind)
  return value
}
