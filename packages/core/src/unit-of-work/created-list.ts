import type { EntityState } from '../track/entity-state.ts'

/**
 * The new entities of a unit of work, in creation order: a list, each entity added once when it is
 * created. An entity stops being one when its status stops being `new` (removed, flushed, forgotten):
 * {@link delete} only counts it, and it is dropped when the list is next read.
 *
 * A list rather than a Set: a million new entities held a Set of about 26 bytes each, and copies of
 * it while it grew; the list holds a reference each.
 */
export class CreatedList implements Iterable<EntityState> {
  #states: EntityState[] = []
  /** Entities deleted (their status changed) and not dropped from the list yet. */
  #gone = 0
  /** `#states` was handed out (see {@link toArray}): it is copied before it changes. */
  #shared = false
  #version = 0

  /** Counts the changes to the list (what was made from it is made again when it moved). */
  get version(): number {
    return this.#version
  }

  /** Adds an entity just created (never in the list yet). */
  add(state: EntityState): void {
    this.#version++
    this.#own().push(state)
  }

  /**
   * Adds again an entity that was deleted (a change taken back): dropped from its old place first,
   * it comes last, as in a Set.
   */
  restore(state: EntityState): void {
    this.#version++
    const states = this.#own()
    const at = states.indexOf(state)
    if (at >= 0) {
      states.splice(at, 1)
      if (state.status !== 'new') this.#gone--
    }
    states.push(state)
  }

  /** Forgets an entity whose status is about to stop being `new`. */
  delete(_state: EntityState): void {
    this.#version++
    this.#gone++
  }

  clear(): void {
    this.#version++
    this.#states = []
    this.#gone = 0
    this.#shared = false
  }

  /**
   * The new entities, in creation order: the list's own array, not to be changed (the list copies it
   * before it next changes). A flush takes its new entities without a second array of a million.
   */
  toArray(): readonly EntityState[] {
    const states = this.#kept()
    this.#shared = true
    return states
  }

  [Symbol.iterator](): Iterator<EntityState> {
    return this.#kept()[Symbol.iterator]()
  }

  /** The list, the entities no longer new dropped first. */
  #kept(): EntityState[] {
    if (this.#gone === 0) return this.#states
    const states = this.#own()
    let kept = 0
    for (let i = 0; i < states.length; i++) if (states[i]!.status === 'new') states[kept++] = states[i]!
    states.length = kept
    this.#gone = 0
    return states
  }

  /** The list's array, to change: a copy of it first if it was handed out. */
  #own(): EntityState[] {
    if (this.#shared) {
      this.#states = this.#states.slice()
      this.#shared = false
    }
    return this.#states
  }
}
