import type { EntityState } from '../track/entity-state.ts'

type Snapshot = Record<string, unknown>

/**
 * What a flush sends of each entity it inserts or updates (their snapshots once it committed), as the
 * unit of work reads it: a read-only map from entity to sent values, kept as arrays of entities and of
 * their values, in the order the flush took them (a map of a million entries cost about 40 MB more
 * than the two arrays). Looking an entity up builds a map the first time.
 */
export class SentRows implements ReadonlyMap<EntityState, Snapshot> {
  readonly #parts: readonly (readonly [readonly EntityState[], readonly Snapshot[]])[]
  readonly size: number
  #byState: Map<EntityState, Snapshot> | undefined

  /** `parts`: entities and their values, aligned, one part after the other. */
  constructor(parts: readonly (readonly [readonly EntityState[], readonly Snapshot[]])[]) {
    this.#parts = parts
    let size = 0
    for (const [states] of parts) size += states.length
    this.size = size
  }

  get(state: EntityState): Snapshot | undefined {
    if (this.#byState === undefined) this.#byState = new Map(this.entries())
    return this.#byState.get(state)
  }

  /**
   * A lookup for entities asked in the order the rows are held: each answer is the next entry when
   * it is the entity asked, found by walking the arrays (no object per entry); the first entity out
   * of that order turns it into {@link get}.
   */
  inOrder(): (state: EntityState) => Snapshot | undefined {
    const parts = this.#parts
    let part = 0
    let i = 0
    let ordered = true
    return (state) => {
      if (ordered) {
        while (part < parts.length && i >= parts[part]![0].length) {
          part++
          i = 0
        }
        if (part < parts.length && parts[part]![0][i] === state) return parts[part]![1][i++]
        ordered = false
      }
      return this.get(state)
    }
  }

  has(state: EntityState): boolean {
    return this.get(state) !== undefined
  }

  /**
   * The entities and their values in order. An iterator of its own, not a generator: settling a
   * flush reads every entry, and a generator's steps cost about twice the garbage.
   */
  entries(): MapIterator<[EntityState, Snapshot]> {
    return new Entries(this.#parts)
  }

  *keys(): MapIterator<EntityState> {
    for (const [state] of this.entries()) yield state
  }

  *values(): MapIterator<Snapshot> {
    for (const [, snapshot] of this.entries()) yield snapshot
  }

  forEach(
    callback: (value: Snapshot, key: EntityState, map: ReadonlyMap<EntityState, Snapshot>) => void,
  ): void {
    for (const [state, snapshot] of this.entries()) callback(snapshot, state, this)
  }

  [Symbol.iterator](): MapIterator<[EntityState, Snapshot]> {
    return this.entries()
  }
}

/** The entries of the parts of a {@link SentRows}, in order. */
class Entries implements MapIterator<[EntityState, Snapshot]> {
  readonly #parts: readonly (readonly [readonly EntityState[], readonly Snapshot[]])[]
  #part = 0
  #i = 0

  constructor(parts: readonly (readonly [readonly EntityState[], readonly Snapshot[]])[]) {
    this.#parts = parts
  }

  next(): IteratorResult<[EntityState, Snapshot], undefined> {
    while (this.#part < this.#parts.length) {
      const [states, snapshots] = this.#parts[this.#part]!
      const i = this.#i
      if (i < states.length) {
        this.#i = i + 1
        return { done: false, value: [states[i]!, snapshots[i]!] }
      }
      this.#part++
      this.#i = 0
    }
    return { done: true, value: undefined }
  }

  [Symbol.iterator](): MapIterator<[EntityState, Snapshot]> {
    return this
  }

  /** Nothing to release (an iterator of arrays). */
  [Symbol.dispose](): void {}
}
