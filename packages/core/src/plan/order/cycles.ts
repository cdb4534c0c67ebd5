import type { Edge } from './dependency-graph.ts'
import { successorIndex } from './waves.ts'

/** An edge the cycle breaker may remove (at a cost) or must keep. */
export interface WeightedEdge extends Edge {
  readonly removable: boolean
  /** What removing it costs (e.g. the rows needing a fix-up); the breaker minimises the sum. */
  readonly cost: number
}

/** Edges to remove (indexes into the input), or a cycle of edges none of which may be removed. */
export type CycleBreak = { readonly removed: ReadonlySet<number> } | { readonly cycle: readonly number[] }

/** Up to this many removable edges in one strongly connected component, the cheapest set is found exactly. */
const EXACT_LIMIT = 12

/** Tarjan's strongly connected components, each listed in increasing node order, components by first node. */
export function stronglyConnectedComponents(nodeCount: number, edges: readonly Edge[]): number[][] {
  const successors = adjacency(nodeCount, edges)
  const order = new Array<number>(nodeCount).fill(-1)
  const low = new Array<number>(nodeCount).fill(0)
  const onStack = new Array<boolean>(nodeCount).fill(false)
  const stack: number[] = []
  const components: number[][] = []
  let counter = 0
  const visit = (start: number): void => {
    // Iterative, so that long chains do not overflow the call stack.
    const work: [number, number][] = [[start, 0]]
    order[start] = low[start] = counter++
    stack.push(start)
    onStack[start] = true
    while (work.length > 0) {
      const frame = work[work.length - 1]!
      const [node, next] = frame
      const targets = successors[node]!
      if (next < targets.length) {
        frame[1] = next + 1
        const target = targets[next]!.to
        if (order[target] === -1) {
          order[target] = low[target] = counter++
          stack.push(target)
          onStack[target] = true
          work.push([target, 0])
        } else if (onStack[target]) {
          low[node] = Math.min(low[node]!, order[target]!)
        }
        continue
      }
      work.pop()
      const parent = work[work.length - 1]
      if (parent !== undefined) low[parent[0]] = Math.min(low[parent[0]]!, low[node]!)
      if (low[node] === order[node]) {
        const component: number[] = []
        let member: number
        do {
          member = stack.pop()!
          onStack[member] = false
          component.push(member)
        } while (member !== node)
        components.push(component.sort((a, b) => a - b))
      }
    }
  }
  for (let node = 0; node < nodeCount; node++) if (order[node] === -1) visit(node)
  return components.sort((a, b) => a[0]! - b[0]!)
}

function adjacency(nodeCount: number, edges: readonly Edge[]): { to: number; edge: number }[][] {
  const successors: { to: number; edge: number }[][] = Array.from({ length: nodeCount }, () => [])
  edges.forEach((edge, i) => {
    successors[edge.from]!.push({ to: edge.to, edge: i })
  })
  return successors
}

/**
 * A cycle among `edges` restricted to the indexes in `active`, as edge indexes in path order starting
 * from its lowest node, or undefined when there is none.
 */
export function findCycle(
  nodeCount: number,
  edges: readonly Edge[],
  active: readonly number[],
): number[] | undefined {
  const successors: { to: number; edge: number }[][] = Array.from({ length: nodeCount }, () => [])
  for (const i of [...active].sort((a, b) => a - b))
    successors[edges[i]!.from]!.push({ to: edges[i]!.to, edge: i })
  const state = new Array<number>(nodeCount).fill(0) // 0 new, 1 on path, 2 done
  const pathEdges: number[] = []
  const pathNodes: number[] = []
  const dfs = (node: number): number[] | undefined => {
    state[node] = 1
    pathNodes.push(node)
    for (const { to, edge } of successors[node]!) {
      if (state[to] === 1) {
        const cycle = [...pathEdges.slice(pathNodes.indexOf(to)), edge]
        return rotateToLowestNode(cycle, edges)
      }
      if (state[to] === 0) {
        pathEdges.push(edge)
        const found = dfs(to)
        if (found !== undefined) return found
        pathEdges.pop()
      }
    }
    state[node] = 2
    pathNodes.pop()
    return undefined
  }
  for (let node = 0; node < nodeCount; node++) {
    if (state[node] !== 0) continue
    const found = dfs(node)
    if (found !== undefined) return found
  }
  return undefined
}

function rotateToLowestNode(cycle: number[], edges: readonly Edge[]): number[] {
  let lowest = 0
  cycle.forEach((edge, i) => {
    if (edges[edge]!.from < edges[cycle[lowest]!]!.from) lowest = i
  })
  return [...cycle.slice(lowest), ...cycle.slice(0, lowest)]
}

/**
 * Whether `edges` leave the graph without a cycle: Kahn's algorithm over typed arrays (successors by
 * node, as offsets into one array), allocating a few arrays whatever the graph.
 *
 * @example
 * acyclic(2, [{ from: 0, to: 1 }]) // true
 * acyclic(2, [{ from: 0, to: 1 }, { from: 1, to: 0 }]) // false
 */
export function acyclic(nodeCount: number, edges: readonly Edge[]): boolean {
  if (edges.length === 0) return true
  if (edges.length === 1) return edges[0]!.from !== edges[0]!.to
  const { start, targets, indegree } = successorIndex(nodeCount, edges)
  const ready = new Int32Array(nodeCount)
  let top = 0
  for (let n = 0; n < nodeCount; n++) if (indegree[n] === 0) ready[top++] = n
  let seen = 0
  while (top > 0) {
    const node = ready[--top]!
    seen++
    for (let e = start[node]!; e < start[node + 1]!; e++) {
      const next = targets[e]!
      if (--indegree[next]! === 0) ready[top++] = next
    }
  }
  return seen === nodeCount
}

function isAcyclic(nodeCount: number, edges: readonly Edge[], active: readonly number[]): boolean {
  const indegree = new Array<number>(nodeCount).fill(0)
  const successors: number[][] = Array.from({ length: nodeCount }, () => [])
  for (const i of active) {
    indegree[edges[i]!.to]!++
    successors[edges[i]!.from]!.push(edges[i]!.to)
  }
  const ready: number[] = []
  indegree.forEach((degree, node) => {
    if (degree === 0) ready.push(node)
  })
  let seen = 0
  while (ready.length > 0) {
    const node = ready.pop()!
    seen++
    for (const next of successors[node]!) if (--indegree[next]! === 0) ready.push(next)
  }
  return seen === nodeCount
}

/** The cheapest subset of `candidates` whose removal leaves `kept` + the rest acyclic, by exhaustive search. */
function cheapestExact(
  nodeCount: number,
  edges: readonly WeightedEdge[],
  kept: readonly number[],
  candidates: readonly number[],
): number[] {
  const masks: { mask: number; cost: number; size: number }[] = []
  for (let mask = 1; mask < 1 << candidates.length; mask++) {
    let cost = 0
    let size = 0
    candidates.forEach((edge, bit) => {
      if (mask & (1 << bit)) {
        cost += edges[edge]!.cost
        size++
      }
    })
    masks.push({ mask, cost, size })
  }
  masks.sort((a, b) => a.cost - b.cost || a.size - b.size || a.mask - b.mask)
  for (const { mask } of masks) {
    const remaining = candidates.filter((_, bit) => !(mask & (1 << bit)))
    if (isAcyclic(nodeCount, edges, [...kept, ...remaining]))
      return candidates.filter((_, bit) => mask & (1 << bit))
  }
  return [...candidates]
}

/** Greedy: cut the cheapest removable edge of each cycle found, then restore cuts that are not needed. */
function cheapestGreedy(
  nodeCount: number,
  edges: readonly WeightedEdge[],
  kept: readonly number[],
  candidates: readonly number[],
): number[] {
  const removed = new Set<number>()
  const active = (): number[] => [...kept, ...candidates.filter((i) => !removed.has(i))]
  for (
    let cycle = findCycle(nodeCount, edges, active());
    cycle !== undefined;
    cycle = findCycle(nodeCount, edges, active())
  ) {
    const cut = cycle
      .filter((i) => edges[i]!.removable)
      .sort((a, b) => edges[a]!.cost - edges[b]!.cost || a - b)[0]
    if (cut === undefined) break // cannot happen: kept edges alone are acyclic
    removed.add(cut)
  }
  const byCostDescending = [...removed].sort((a, b) => edges[b]!.cost - edges[a]!.cost || b - a)
  for (const edge of byCostDescending) {
    removed.delete(edge)
    if (!isAcyclic(nodeCount, edges, active())) removed.add(edge)
  }
  return [...removed].sort((a, b) => a - b)
}

/**
 * Chooses edges to remove so that the graph has no cycle, deterministically: within each strongly
 * connected component, the removable edges of least total cost (then fewest edges); exact up to
 * {@link EXACT_LIMIT} removable edges per component, greedy beyond. Returns a cycle of non-removable edges
 * when there is one.
 */
export function breakCycles(nodeCount: number, edges: readonly WeightedEdge[]): CycleBreak {
  // The common flush has no cycle: found without components (a few microseconds of a small flush).
  if (acyclic(nodeCount, edges)) return { removed: new Set() }
  const component = new Array<number>(nodeCount).fill(-1)
  stronglyConnectedComponents(nodeCount, edges).forEach((members, c) => {
    for (const node of members) component[node] = c
  })
  const internal = new Map<number, number[]>()
  edges.forEach((edge, i) => {
    const c = component[edge.from]!
    if (c !== component[edge.to]) return
    const list = internal.get(c) ?? []
    list.push(i)
    internal.set(c, list)
  })
  const removed = new Set<number>()
  for (const c of [...internal.keys()].sort((a, b) => a - b)) {
    const inside = internal.get(c)!
    const kept = inside.filter((i) => !edges[i]!.removable)
    const fixedCycle = findCycle(nodeCount, edges, kept)
    if (fixedCycle !== undefined) return { cycle: fixedCycle }
    const candidates = inside.filter((i) => edges[i]!.removable)
    const cut =
      candidates.length <= EXACT_LIMIT
        ? cheapestExact(nodeCount, edges, kept, candidates)
        : cheapestGreedy(nodeCount, edges, kept, candidates)
    for (const i of cut) removed.add(i)
  }
  return { removed }
}
