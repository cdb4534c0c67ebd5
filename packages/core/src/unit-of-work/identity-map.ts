import { errors } from '../errors.ts'
import type { EntityState } from '../track/entity-state.ts'

/**
 * One entity per (table, primary key) in a unit of work. Entities mapped by {@link set} are indexed
 * on the next read ({@link get}, {@link delete}, {@link values}, {@link size}): a flush of 100,000 new
 * rows maps them all, and a unit of work that is dropped after its flush never pays for the index.
 */
export class IdentityMap {
  readonly #tables = new Map<string, Map<string, EntityState>>()
  /** Mapped, not indexed yet, in mapping order (a later one wins, as in a map). */
  #unindexed: EntityState[] = []
  #version = 0

  /** Counts the changes to what is mapped (what was made from it is made again when it moved). */
  get version(): number {
    return this.#version
  }

  get(table: string, key: string): EntityState | undefined {
    return this.#indexed().get(table)?.get(key)
  }

  set(state: EntityState): void {
    if (state.key === null)
      throw errors.internal('IdentityMap.set', 'an entity without a key cannot be mapped')
    this.#version++
    this.#unindexed.push(state)
  }

  /**
   * Maps `state` as {@link set} does, indexed at once: for a read tracking its rows one by one, each
   * after a {@link get} of its key (which left nothing to index).
   */
  setIndexed(state: EntityState): void {
    if (state.key === null)
      throw errors.internal('IdentityMap.setIndexed', 'an entity without a key cannot be mapped')
    this.#version++
    if (this.#unindexed.length > 0) {
      this.#unindexed.push(state)
      return
    }
    const table = state.table.key
    let t = this.#tables.get(table)
    if (t === undefined) {
      t = new Map()
      this.#tables.set(table, t)
    }
    t.set(state.key, state)
  }

  /**
   * Maps every state of `states` (each keyed), in order: as {@link set} one by one, in one copy
   * (a flush of 100,000 new rows grew the list row by row, leaving twice its size in garbage).
   */
  setAll(states: readonly EntityState[]): void {
    for (let i = 0; i < states.length; i++)
      if (states[i]!.key === null)
        throw errors.internal('IdentityMap.setAll', 'an entity without a key cannot be mapped')
    this.#version++
    this.#unindexed = this.#unindexed.length === 0 ? states.slice() : this.#unindexed.concat(states)
  }

  /** Unmaps `state`, unless its key maps another entity now (a new row that took a removed one's key). */
  delete(state: EntityState): void {
    this.#version++
    if (state.key === null) return
    const table = this.#indexed().get(state.table.key)
    if (table?.get(state.key) === state) table.delete(state.key)
  }

  clear(): void {
    this.#version++
    this.#tables.clear()
    this.#unindexed = []
  }

  /** The states of one table. */
  ofTable(table: string): IterableIterator<EntityState> {
    return (this.#indexed().get(table) ?? new Map<string, EntityState>()).values()
  }

  /** Every state, table by table. */
  *values(): IterableIterator<EntityState> {
    for (const t of this.#indexed().values()) yield* t.values()
  }

  get size(): number {
    let n = 0
    for (const t of this.#indexed().values()) n += t.size
    return n
  }

  #indexed(): Map<string, Map<string, EntityState>> {
    const pending = this.#unindexed
    if (pending.length === 0) return this.#tables
    let table: string | undefined
    let t: Map<string, EntityState> | undefined
    for (const state of pending) {
      if (state.table.key !== table) {
        table = state.table.key
        t = this.#tables.get(table)
        if (!t) {
          t = new Map()
          this.#tables.set(table, t)
        }
      }
      t!.set(state.key!, state)
    }
    // Emptied in place: a read after each mapping (rows tracked one by one) makes no list each time.
    pending.length = 0
    return this.#tables
  }
}
