import type { EntityState, RelationReads } from '../track/entity-state.ts'

/**
 * What graph loads recorded of `state`'s relations (see `RelationReads`), made the first time: held by
 * the entity's state, not in maps keyed by it (a load records some for most of its rows).
 */
function readsOf(state: EntityState): RelationReads {
  let reads = state.relationReads
  if (reads === undefined) {
    reads = { counts: undefined, references: undefined, orders: undefined }
    state.relationReads = reads
  }
  return reads
}

/**
 * Records that `relation` relates `n` rows to the entity of `state`, as a graph load counted them
 * (`$count`), for {@link countOf}.
 *
 * @example
 * recordCount(article, 'favorites', 3)
 */
export function recordCount(state: EntityState, relation: string, n: number): void {
  const reads = readsOf(state)
  reads.counts ??= new Map()
  reads.counts.set(relation, n)
}

/**
 * How many rows `relation` related to the entity of `state` when a graph load counted them; undefined
 * when none did. A count is what the read saw: the unit of work's later changes do not move it.
 *
 * @example
 * countOf(article, 'favorites') // 3
 */
export function countOf(state: EntityState, relation: string): number | undefined {
  return state.relationReads?.counts?.get(relation)
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
  const reads = readsOf(state)
  reads.orders ??= new Map()
  reads.orders.set(relation, ranks)
}

/**
 * `related` in the order a graph load read them for `state`'s `relation` (rows it did not read, new
 * ones among them, after those, as they were); `related` itself when no order was asked for.
 */
export function inReadOrder(state: EntityState, relation: string, related: EntityState[]): EntityState[] {
  const ranks = state.relationReads?.orders?.get(relation)
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
  const reads = readsOf(state)
  reads.references ??= new Map()
  reads.references.set(relation, key)
}

/** The foreign key a graph load last read many-to-one `relation` of `state` for; undefined when none did. */
export function referenceRead(state: EntityState, relation: string): string | null | undefined {
  return state.relationReads?.references?.get(relation)
}
