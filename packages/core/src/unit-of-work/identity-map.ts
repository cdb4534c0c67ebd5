import { errors } from '../errors.ts'
import type { EntityState } from '../track/entity-state.ts'

/** One entity per (table, primary key) in a unit of work. */
export class IdentityMap {
  readonly #tables = new Map<string, Map<string, EntityState>>()

  get(table: string, key: string): EntityState | undefined {
    return this.#tables.get(table)?.get(key)
  }

  set(state: EntityState): void {
    if (state.key === null)
      throw errors.internal('IdentityMap.set', 'an entity without a key cannot be mapped')
    let t = this.#tables.get(state.table.key)
    if (!t) {
      t = new Map()
      this.#tables.set(state.table.key, t)
    }
    t.set(state.key, state)
  }

  delete(state: EntityState): void {
    if (state.key !== null) this.#tables.get(state.table.key)?.delete(state.key)
  }

  clear(): void {
    this.#tables.clear()
  }

  /** Every state, table by table. */
  *values(): IterableIterator<EntityState> {
    for (const t of this.#tables.values()) yield* t.values()
  }

  get size(): number {
    let n = 0
    for (const t of this.#tables.values()) n += t.size
    return n
  }
}
