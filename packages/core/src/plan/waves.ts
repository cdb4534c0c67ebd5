import { errors } from '../errors.ts'
import type { Edge } from './dependency-graph.ts'

/**
 * Assigns each node its wave: 0 without predecessors, else one more than its latest predecessor (the
 * longest path), which gives the fewest waves. Nodes of one wave never depend on each other. Throws when
 * the graph has a cycle (the planner breaks cycles before).
 */
export function assignWaves(nodeCount: number, edges: readonly Edge[]): number[] {
  const wave = new Array<number>(nodeCount).fill(0)
  const indegree = new Array<number>(nodeCount).fill(0)
  const successors: number[][] = Array.from({ length: nodeCount }, () => [])
  for (const { from, to } of edges) {
    successors[from]!.push(to)
    indegree[to]!++
  }
  const ready: number[] = []
  indegree.forEach((degree, node) => {
    if (degree === 0) ready.push(node)
  })
  let done = 0
  while (ready.length > 0) {
    const node = ready.pop()!
    done++
    for (const next of successors[node]!) {
      wave[next] = Math.max(wave[next]!, wave[node]! + 1)
      if (--indegree[next]! === 0) ready.push(next)
    }
  }
  if (done !== nodeCount) throw errors.internal('waveOf', 'the statement graph has a cycle')
  return wave
}

/** Groups node indexes by wave, each wave in increasing node order. */
export function groupByWave(waves: readonly number[]): number[][] {
  const groups: number[][] = []
  waves.forEach((wave, node) => {
    while (groups.length <= wave) groups.push([])
    groups[wave]!.push(node)
  })
  return groups.filter((group) => group.length > 0)
}

/**
 * The nodes in waves: {@link assignWaves} then {@link groupByWave}; without edges, one wave of every
 * node in order (the common flush: no foreign key between its statements) without either pass.
 */
export function orderInWaves(nodeCount: number, edges: readonly Edge[]): number[][] {
  if (edges.length === 0) return nodeCount === 0 ? [] : [Array.from({ length: nodeCount }, (_, i) => i)]
  return groupByWave(assignWaves(nodeCount, edges))
}
