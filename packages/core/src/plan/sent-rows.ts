import type { EntityState } from '../track/entity-state.ts'
import { isKept, wholeSnapshot } from '../track/sent-snapshot.ts'
import type { SentParts } from './draft.ts'

type Snapshot = Record<string, unknown>

/** What was sent of an entity as held: a snapshot, or one kept as sent (see `Kept`). */
export type HeldSent = Snapshot | number

/**
 * What a flush sends of each entity it inserts or updates (their snapshots once it committed), as the
 * unit of work reads it: a read-only map from entity to sent values, kept as arrays of entities and of
 * their values, in the order the flush took them (a map of a million entries cost about 40 MB more
 * than the two arrays). An entity without a value holds what was sent of it (a large insert's, kept
 * as sent: see `checkInsert`): the map answers their whole snapshots, made for the
 * asking, and {@link inOrder} the values as held. Looking an entity up builds a map the first time.
 */
export class SentRows implements ReadonlyMap<EntityState, Snapshot> {
  readonly #parts: SentParts
  readonly size: number
  #byState: Map<EntityState, HeldSent> | undefined

  /** `parts`: entities and their values, aligned, one part after the other. */
  constructor(parts: SentParts) {
    this.#parts = parts
    let size = 0
    for (const [states] of parts) size += states.length
    this.size = size
  }

  get(state: EntityState): Snapshot | undefined {
    const held = this.#held(state)
    return held === undefined ? undefined : whole(state, held)
  }

  /**
   * A lookup for entities asked in the order the rows are held, answering what was sent as held:
   * each answer is the next entry when it is the entity asked, found by walking the arrays (no object
   * per entry); the first entity out of that order turns it into lookups in a map.
   */
  inOrder(): (state: EntityState) => HeldSent | undefined {
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
        if (part < parts.length && parts[part]![0][i] === state) {
          const values = parts[part]![1]
          i++
          return values?.[i - 1] ?? heldBy(state)
        }
        ordered = false
      }
      return this.#held(state)
    }
  }

  /**
   * Calls `visit` with each entity and what was sent of it as held (not made whole), in order: plain
   * loops, no entry object (a flush's settling reads every entity once).
   */
  eachHeld(visit: (state: EntityState, held: HeldSent) => void): void {
    const parts = this.#parts
    for (let p = 0; p < parts.length; p++) {
      const [states, values] = parts[p]!
      for (let i = 0; i < states.length; i++) visit(states[i]!, values?.[i] ?? heldBy(states[i]!) ?? {})
    }
  }

  has(state: EntityState): boolean {
    return this.#held(state) !== undefined
  }

  /**
   * The entities and their values in order. An iterator of its own, not a generator: settling a
   * flush reads every entry, and a generator's steps cost about twice the garbage.
   */
  entries(): MapIterator<[EntityState, Snapshot]> {
    return new Entries(this.#parts)
  }

  *keys(): MapIterator<EntityState> {
    for (const [states] of this.#parts) yield* states
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

  /** What was sent of `state` as held, found in a map built the first time. */
  #held(state: EntityState): HeldSent | undefined {
    if (this.#byState === undefined) {
      const byState = new Map<EntityState, HeldSent>()
      for (const [states, values] of this.#parts)
        for (let i = 0; i < states.length; i++)
          byState.set(states[i]!, values?.[i] ?? heldBy(states[i]!) ?? {})
      this.#byState = byState
    }
    return this.#byState.get(state)
  }
}

/** What `state` holds of what was sent of it (a part without values: see {@link SentRows}). */
function heldBy(state: EntityState): HeldSent | undefined {
  return state.heldSnapshot ?? undefined
}

/** The whole snapshot of what was sent as held. */
function whole(state: EntityState, held: HeldSent): Snapshot {
  return isKept(held) ? wholeSnapshot(held, state) : held
}

/** The entries of the parts of a {@link SentRows}, in order, whole. */
class Entries implements MapIterator<[EntityState, Snapshot]> {
  readonly #parts: SentParts
  #part = 0
  #i = 0

  constructor(parts: SentParts) {
    this.#parts = parts
  }

  next(): IteratorResult<[EntityState, Snapshot], undefined> {
    while (this.#part < this.#parts.length) {
      const [states, values] = this.#parts[this.#part]!
      const i = this.#i
      if (i < states.length) {
        this.#i = i + 1
        const state = states[i]!
        const held = values?.[i] ?? heldBy(state) ?? {}
        return { done: false, value: [state, whole(state, held)] }
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
