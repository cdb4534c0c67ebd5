import { PipeflushError } from '../errors.ts'
import type { SchemaModel } from '../schema/model.ts'
import { buildStatement } from './build-statement.ts'
import { breakCycles } from './cycles.ts'
import {
  type Edge,
  findDeleteEdges,
  findInsertEdges,
  findUpdateDeleteEdges,
  findUpdateEdges,
  type InsertEdge,
} from './dependency-graph.ts'
import { compareDrafts, type StatementDraft, serverKeyed } from './drafts.ts'
import { breakInsertEdges, fixupCost, isBreakable } from './fixups.ts'
import { groupChanges } from './group-changes.ts'
import type { ChangeSet, FlushPlan } from './types.ts'
import { orderInWaves } from './waves.ts'

function unresolvableCycle(inserts: readonly StatementDraft[], cycle: readonly InsertEdge[]): PipeflushError {
  const links = cycle.map((edge) => {
    const child = inserts[edge.to]!.table
    const names = [...new Set(edge.references.map((r) => r.fk.name))].sort()
    return `${child.key} -> ${inserts[edge.from]!.table.key} (${names.join(', ')})`
  })
  const first = inserts[cycle[0]!.to]!.table.key
  return new PipeflushError(
    'UNRESOLVABLE_CYCLE',
    `New rows reference each other in a cycle of NOT NULL, non-deferred foreign keys: ${links.join(', ')}. ` +
      'No insert order exists; make one of these foreign keys nullable or DEFERRABLE INITIALLY DEFERRED.',
    { table: first, keys: cycle.flatMap((edge) => edge.references.map((r) => r.row.key)) },
  )
}

/** Breaks insert cycles at nullable foreign keys (fewest fix-up rows); throws UNRESOLVABLE_CYCLE otherwise. */
function orderInserts(schema: SchemaModel, inserts: readonly StatementDraft[]) {
  const edges = findInsertEdges(schema, inserts)
  const result = breakCycles(
    inserts.length,
    edges.map((edge) => ({
      ...edge,
      // A row whose key the server fills cannot be fixed up later: no UPDATE can find it.
      removable: isBreakable(edge, inserts[edge.to]!.table) && !serverKeyed(inserts[edge.to]!),
      cost: fixupCost(edge),
    })),
  )
  if ('cycle' in result)
    throw unresolvableCycle(
      inserts,
      result.cycle.map((i) => edges[i]!),
    )
  const fixups = breakInsertEdges(
    inserts,
    edges.filter((_, i) => result.removed.has(i)),
  )
  return { kept: edges.filter((_, i) => !result.removed.has(i)), fixups }
}

/** Delete edges with cycles broken where the order matters least (the server decides in the end). */
function orderDeletes(deletes: readonly StatementDraft[], offset: number): Edge[] {
  if (deletes.length < 2) return [] // one delete per table: a single one has nothing to wait for
  const edges = findDeleteEdges(deletes, offset)
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

/**
 * Plans a flush: validates and encodes the change set, groups rows into statements (insert per table and
 * supplied columns, update per table and set columns, delete per table), orders them by foreign key
 * dependency computed from the data and returns them in waves. Pure: no I/O.
 *
 * Order rules (edges only where the order matters):
 * - insert(P) before insert(C) when a new C row references a new P row (foreign key not initially deferred);
 *   a cycle of such inserts is broken at nullable foreign keys (inserted as NULL, then set by a fix-up
 *   UPDATE), or throws `UNRESOLVABLE_CYCLE`;
 * - insert(P) before an update of C that sets a foreign key to a new P row;
 * - an update of C that sets a foreign key to P (or whose key to P cascades) before delete(P);
 * - delete(C) before delete(P) for every foreign key C -> P.
 *
 * @example
 * const plan = planFlush(schema, {
 *   inserts: [{ table: 'author', values: { id: 1, name: 'Ann' } }, { table: 'book', values: { id: 'b1', author_id: 1 } }],
 *   updates: [],
 *   deletes: [],
 * })
 * plan.waves.map((wave) => wave.map((s) => `${s.kind} ${s.table}`)) // [['insert author'], ['insert book']]
 */
export function planFlush(schema: SchemaModel, changes: ChangeSet): FlushPlan {
  const { inserts, updates, deletes } = groupChanges(schema, changes)
  if (inserts.length + updates.length + deletes.length === 0) return { waves: [] }
  const { kept, fixups } = orderInserts(schema, inserts)
  const allUpdates = [...updates, ...fixups.drafts]
  const updateOffset = inserts.length
  const fixupOffset = updateOffset + updates.length
  const deleteOffset = updateOffset + allUpdates.length
  const edges: Edge[] = [
    ...kept,
    ...fixups.after.map((edge) => ({ from: edge.from, to: edge.to + fixupOffset })),
    ...findUpdateEdges(schema, inserts, allUpdates, updateOffset),
    ...findUpdateDeleteEdges(allUpdates, updateOffset, deletes, deleteOffset),
    ...orderDeletes(deletes, deleteOffset),
  ]
  const drafts = [...inserts, ...allUpdates, ...deletes]
  const waves = orderInWaves(drafts.length, edges)
  return {
    waves: waves.map((wave) =>
      wave
        .sort((a, b) => compareDrafts(drafts[a]!, drafts[b]!) || a - b)
        .map((node) => buildStatement(drafts[node]!)),
    ),
  }
}

/**
 * What a plan writes, in a few words: each kind of statement with its tables, in the order sent
 * (`INSERT author book; UPDATE book; DELETE review`). Low cardinality: fit for a span's query summary.
 *
 * @example
 * planSummary(plan) // 'INSERT author book; DELETE review'
 */
export function planSummary(plan: FlushPlan): string {
  const byKind = new Map<string, string[]>()
  for (const s of plan.waves.flat()) {
    const kind = s.upsert !== undefined ? 'UPSERT' : s.copy === true ? 'COPY' : s.kind.toUpperCase()
    const tables = byKind.get(kind) ?? []
    if (!tables.includes(s.table)) tables.push(s.table)
    byKind.set(kind, tables)
  }
  return [...byKind].map(([kind, tables]) => `${kind} ${tables.join(' ')}`).join('; ')
}
