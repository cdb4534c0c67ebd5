import type { EntityState } from '../track/entity-state.ts'

/**
 * The managed entities whose values can change in place (json, arrays, bytea, timestamps), compared
 * at every flush: a list, each entity added once, when it becomes managed (read, merged, or inserted
 * by a flush). An entity that stops being managed is dropped when the list is next read, not looked
 * for at once.
 *
 * A list rather than a Set: a flush of 100,000 new rows with a timestamp column adds them all, and a
 * Set growing to that size made about 5 MB of garbage and held 3 times the memory.
 */
export class WatchList {
  #states: EntityState[] = []

  /** Adds an entity that has just become managed. */
  add(state: EntityState): void {
    this.#states.push(state)
  }

  /** Adds entities that have just become managed, in one copy (as `IdentityMap.setAll`). */
  addAll(states: readonly EntityState[]): void {
    this.#states = this.#states.length === 0 ? states.slice() : this.#states.concat(states)
  }

  /** The entities still managed, in the order they were added (the others are dropped now). */
  managed(): readonly EntityState[] {
    const states = this.#states
    let kept = 0
    for (let i = 0; i < states.length; i++) {
      const s = states[i]!
      if (s.status === 'managed') states[kept++] = s
      else if (s.status === 'removed') states[kept++] = s // removed, not flushed yet: may be restored
    }
    states.length = kept
    const out: EntityState[] = []
    for (let i = 0; i < kept; i++) if (states[i]!.status === 'managed') out.push(states[i]!)
    return out
  }

  clear(): void {
    this.#states = []
  }
}
