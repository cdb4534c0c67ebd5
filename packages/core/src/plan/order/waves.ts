import { errors } from '../../errors.ts'
import type { Edge } from './dependency-graph.ts'

/**
 * Assigns each node its wave: 0 without predecessors, else one more than its latest predecessor (the
 * longest path), which gives the fewest waves. Nodes from `lateFrom` on (a flush's deletes) then go as
 * late as their successors let them, the last wave for one without: they follow the inserts and
 * updates the order leaves free, as a unit of work's deletes do by convention (a delete's cascade,
 * SET NULL or SET DEFAULT may touch rows those statements write). Nodes of one wave never depend on
 * each other. Throws when the graph has a cycle (the planner breaks cycles before).
 */
export function assignWaves(nodeCount: number, edges: readonly Edge[], lateFrom = nodeCount): number[] {
  const { start, targets, indegree } = successorIndex(nodeCount, edges)
  const wave = new Array<number>(nodeCount).fill(0)
  const ready = new Int32Array(nodeCount)
  const order = new Int32Array(nodeCount)
  let top = 0
  for (let n = 0; n < nodeCount; n++) if (indegree[n] === 0) ready[top++] = n
  let done = 0
  let last = 0
  while (top > 0) {
    const node = ready[--top]!
    order[done++] = node
    if (wave[node]! > last) last = wave[node]!
    for (let e = start[node]!; e < start[node + 1]!; e++) {
      const next = targets[e]!
      wave[next] = Math.max(wave[next]!, wave[node]! + 1)
      if (--indegree[next]! === 0) ready[top++] = next
    }
  }
  if (done !== nodeCount) throw errors.internal('waveOf', 'the statement graph has a cycle')
  if (lateFrom < nodeCount) {
    // In reverse topological order: a node's successors have their final waves.
    for (let i = nodeCount - 1; i >= 0; i--) {
      const node = order[i]!
      if (node < lateFrom) continue
      let latest = last
      for (let e = start[node]!; e < start[node + 1]!; e++) latest = Math.min(latest, wave[targets[e]!]! - 1)
      if (latest > wave[node]!) wave[node] = latest
    }
  }
  return wave
}

/** Groups node indexes by wave, each wave in increasing node order. */
export function groupByWave(waves: readonly number[]): number[][] {
  const groups: number[][] = []
  for (let node = 0; node < waves.length; node++) {
    const wave = waves[node]!
    while (groups.length <= wave) groups.push([])
    groups[wave]!.push(node)
  }
  // Every wave up to the last has a node: a node's wave is one more than a predecessor's.
  return groups.some((group) => group.length === 0) ? groups.filter((group) => group.length > 0) : groups
}

/**
 * The nodes in waves: {@link assignWaves} (nodes from `lateFrom` on as late as they may go) then
 * {@link groupByWave}; without edges, one wave of every node in order (the common flush: no foreign key between its statements) without either pass.
 */
export function orderInWaves(nodeCount: number, edges: readonly Edge[], lateFrom = nodeCount): number[][] {
  if (edges.length === 0) {
    if (nodeCount === 0) return []
    const wave = new Array<number>(nodeCount)
    for (let i = 0; i < nodeCount; i++) wave[i] = i
    return [wave]
  }
  return groupByWave(assignWaves(nodeCount, edges, lateFrom))
}

/**
 * The successors of each node as one typed array (`targets[start[n]]` to `targets[start[n + 1] - 1]`)
 * and each node's count of predecessors: what {@link assignWaves} and `acyclic` walk. A few arrays per
 * flush whatever the graph, where a list per node and per-node callbacks cost more than the walk.
 */
export function successorIndex(
  nodeCount: number,
  edges: readonly Edge[],
): { readonly start: Int32Array; readonly targets: Int32Array; readonly indegree: Int32Array } {
  const start = new Int32Array(nodeCount + 1)
  const indegree = new Int32Array(nodeCount)
  for (let i = 0; i < edges.length; i++) {
    start[edges[i]!.from + 1]!++
    indegree[edges[i]!.to]!++
  }
  for (let n = 0; n < nodeCount; n++) start[n + 1]! += start[n]!
  const fill = start.slice(0, nodeCount)
  const targets = new Int32Array(edges.length)
  for (let i = 0; i < edges.length; i++) targets[fill[edges[i]!.from]!++] = edges[i]!.to
  return { start, targets, indegree }
}
