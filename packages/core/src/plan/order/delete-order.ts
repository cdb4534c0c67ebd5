import type { StatementDraft } from '../draft.ts'
import { acyclic, breakCycles } from './cycles.ts'
import { type Edge, findDeleteEdges } from './dependency-graph.ts'

/**
 * The delete-before-delete edges of a flush's deletes (indexes offset by `offset`), with cycles broken
 * where the order matters least (the server decides in the end): they follow from the deletes' tables
 * alone (see `findDeleteEdges`).
 *
 * @example
 * orderDeletes([deleteOfLines, deleteOfPurchases], 4) // [{ from: 4, to: 5, ... }]: lines first
 */
export function orderDeletes(deletes: readonly StatementDraft[], offset: number): Edge[] {
  if (deletes.length < 2) return [] // one delete per table: a single one has nothing to wait for
  const edges = findDeleteEdges(deletes, offset)
  if (acyclic(deletes.length, localEdges(edges, offset))) return edges
  const local = edges.map((edge) => ({
    from: edge.from - offset,
    to: edge.to - offset,
    removable: true,
    cost: edge.weight,
  }))
  const result = breakCycles(deletes.length, local)
  const removed = 'removed' in result ? result.removed : new Set<number>()
  return edges.filter((_, i) => !removed.has(i))
}

/** Delete edges between the deletes' own indexes (`offset` taken off), for a cycle check. */
function localEdges(edges: readonly Edge[], offset: number): Edge[] {
  return edges.map((edge) => ({ from: edge.from - offset, to: edge.to - offset }))
}
