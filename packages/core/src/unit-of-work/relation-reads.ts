import type { EntityState } from '../track/entity-state.ts'

/** What a graph load counted per entity: relation name to count (`$count`). */
const counts = new WeakMap<EntityState, Map<string, number>>()

/**
 * What a graph load read a many-to-one for, per entity: relation name to the canonical text of the
 * foreign key's values in the row read (see `canonicalText`), null for a null key.
 */
const references = new WeakMap<EntityState, Map<string, string | null>>()

/** The order a graph load read an entity's related rows in (`$orderBy`): relation name to each row's rank. */
const orders = new WeakMap<EntityState, Map<string, ReadonlyMap<EntityState, number>>>()

/**
 * Records that `relation` relates `n` rows to the entity of `state`, as a graph load counted them
 * (`$count`), for {@link countOf}.
 *
 * @example
 * recordCount(article, 'favorites', 3)
 */
export function recordCount(state: EntityState, relation: string, n: number): void {
  let map = counts.get(state)
  if (map === undefined) {
    map = new Map()
    counts.set(state, map)
  }
  map.set(relation, n)
}

/**
 * How many rows `relation` related to the entity of `state` when a graph load counted them; undefined
 * when none did. A count is what the read saw: the unit of work's later changes do not move it.
 *
 * @example
 * countOf(article, 'favorites') // 3
 */
export function countOf(state: EntityState, relation: string): number | undefined {
  return counts.get(state)?.get(relation)
}

/**
 * Records the order in which a graph load read the rows `relation` relates to the entity of `state`
 * (`ranks`: each row's place in its select), so that navigation gives them in that order.
 *
 * @example
 * recordOrder(article, 'comments', new Map([[newest, 0], [older, 1]]))
 */
export function recordOrder(
  state: EntityState,
  relation: string,
  ranks: ReadonlyMap<EntityState, number>,
): void {
  let map = orders.get(state)
  if (map === undefined) {
    map = new Map()
    orders.set(state, map)
  }
  map.set(relation, ranks)
}

/**
 * `related` in the order a graph load read them for `state`'s `relation` (rows it did not read, new
 * ones among them, after those, as they were); `related` itself when no order was asked for.
 */
export function inReadOrder(state: EntityState, relation: string, related: EntityState[]): EntityState[] {
  const ranks = orders.get(state)?.get(relation)
  if (ranks === undefined || related.length < 2) return related
  const last = Number.MAX_SAFE_INTEGER
  return related
    .map((s, i) => ({ s, i, rank: ranks.get(s) ?? last }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map((x) => x.s)
}

/**
 * Records that a graph load read many-to-one `relation` of the entity of `state` for the foreign key
 * `key` (its canonical text in the row read): the related row, if the read gave none (its `$where`
 * did not match), is none, and navigation gives null while the key is still that one.
 *
 * @example
 * recordReference(book, 'publisher', '1')
 */
export function recordReference(state: EntityState, relation: string, key: string | null): void {
  let map = references.get(state)
  if (map === undefined) {
    map = new Map()
    references.set(state, map)
  }
  map.set(relation, key)
}

/** The foreign key a graph load last read many-to-one `relation` of `state` for; undefined when none did. */
export function referenceRead(state: EntityState, relation: string): string | null | undefined {
  return references.get(state)?.get(relation)
}
