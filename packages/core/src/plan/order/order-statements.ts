import { errors } from '../../errors.ts'
import type { SchemaModel } from '../../model/model.ts'
import { compareDrafts, type StatementDraft, serverKeyed } from '../draft.ts'
import { acyclic, breakCycles } from './cycles.ts'
import { deleteOrder, type NullingFixups, nullingFixups } from './delete-order.ts'
import {
  type Edge,
  findCascadeDeleteEdges,
  findCascadeFreeingEdges,
  findInsertEdges,
  findUpdateDeleteEdges,
  findUpdateEdges,
  type InsertEdge,
} from './dependency-graph.ts'
import { breakInsertEdges, type Fixups, fixupCost, isBreakable } from './fixups.ts'
import { findHandoffEdges } from './unique-handoffs.ts'
import { orderInWaves } from './waves.ts'

function unresolvableCycle(inserts: readonly StatementDraft[], cycle: readonly InsertEdge[]) {
  const links = cycle.map((edge) => {
    const insert = inserts[edge.to]!
    const names = [...new Set(edge.references.map((r) => r.fk.name))].sort()
    return `${insert.table.key} -> ${inserts[edge.from]!.table.key} (${names.join(', ')}; ${unbreakable(edge, insert)})`
  })
  const first = inserts[cycle[0]!.to]!.table.key
  const keys = cycle.flatMap((edge) => edge.references.map((r) => inserts[edge.to]!.keys[r.row]))
  return errors.unresolvableCycle(first, links, keys)
}

/** Why the reference `edge` of `insert`'s rows cannot be written later by a fix-up. */
function unbreakable(edge: InsertEdge, insert: StatementDraft): string {
  const { table } = insert
  const nullable = edge.references.every(({ fk }) =>
    fk.columns.every((name) => table.columnsByName.get(name)?.nullable === true),
  )
  if (!nullable) return 'NOT NULL'
  if (serverKeyed(insert)) return "the row's key is left to the server"
  if (insert.upsert !== undefined) return 'an upsert, whose row may exist'
  return 'nullable'
}

/** Breaks insert cycles at nullable foreign keys (fewest fix-up rows); throws UNRESOLVABLE_CYCLE otherwise. */
function orderInserts(schema: SchemaModel, inserts: readonly StatementDraft[]) {
  const edges = findInsertEdges(schema, inserts)
  if (acyclic(inserts.length, edges)) return { kept: edges, fixups: NO_INSERT_ORDER.fixups }
  const result = breakCycles(
    inserts.length,
    edges.map((edge) => ({
      ...edge,
      // A row whose key the server fills cannot be fixed up later: no UPDATE can find it.
      removable: isBreakable(edge, inserts[edge.to]!) && !serverKeyed(inserts[edge.to]!),
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

/**
 * Orders statements by foreign key dependency computed from the data, in waves: every statement of a
 * wave may depend on statements of earlier waves only; within a wave, in `compareDrafts` order.
 * Returns every statement (the fix-ups it adds included) and the waves as indexes into them.
 *
 * Order rules (edges only where the order matters):
 * - insert(P) before insert(C) when a new C row references a new P row (foreign key not initially deferred);
 *   a cycle of such inserts is broken at nullable foreign keys (inserted as NULL, then set by a fix-up
 *   UPDATE), or throws `UNRESOLVABLE_CYCLE`;
 * - insert(P) before an update of C that sets a foreign key to a new P row;
 * - an update of C that sets a foreign key to P (or whose key to P cascades) before delete(P);
 * - delete(C) before delete(P) for every foreign key C -> P; a cycle of such deletes is broken where the
 *   order matters least: at a nullable foreign key, set to NULL in the deleted C rows by a fix-up
 *   UPDATE before both deletes (see `nullingFixups`), else where the server decides;
 * - delete(C) before delete(P) where P's delete may cascade to the rows C references, where that
 *   contradicts none of these (see `findCascadeDeleteEdges`); then delete(P) before delete(X) where
 *   P's delete may cascade to rows that reference X's (see `findCascadeFreeingEdges`);
 * - the statement freeing a unique value (a delete, an update changing it) before the one taking it
 *   (an insert, an update), where that keeps the order above (see `unique-handoffs.ts`);
 * - then each delete as late as these let it (see `assignWaves`).
 *
 * A reference to a new row whose id is not assigned yet (a slot) is one to that row, whatever id it
 * gets.
 *
 * Foreign keys are checked at each statement: a referenced row must exist first, referencing ones be gone.

 */
export function orderStatements(
  schema: SchemaModel,
  inserts: readonly StatementDraft[],
  updates: readonly StatementDraft[],
  deletes: readonly StatementDraft[],
): { readonly statements: StatementDraft[]; readonly waves: number[][] } {
  const count = inserts.length + updates.length + deletes.length
  if (count === 0) return { statements: [], waves: [] }
  // One statement waits for none: rows of one statement referencing each other need no order (foreign
  // keys are checked at its end), and a single delete has no other to follow.
  if (count === 1) return { statements: [...inserts, ...updates, ...deletes], waves: [[0]] }
  // Fewer than two inserts: none waits for another (a row referencing its own statement's needs no order).
  const { kept, fixups } = inserts.length < 2 ? NO_INSERT_ORDER : orderInserts(schema, inserts)
  // Deletes in a cycle broken at a nullable foreign key: that key set to NULL first, by fix-ups.
  const deletion = deleteOrder(deletes)
  const nulling = deletion.broken.length === 0 ? NO_NULLING : nullingFixups(deletes, deletion.broken)
  // Joined with `concat` and loops, not spreads: this runs at every flush of more than one statement.
  let allUpdates = fixups.drafts.length === 0 ? updates : updates.concat(fixups.drafts)
  if (nulling.drafts.length > 0) allUpdates = allUpdates.concat(nulling.drafts)
  const updateOffset = inserts.length
  const fixupOffset = updateOffset + updates.length
  const nullingOffset = fixupOffset + fixups.drafts.length
  const deleteOffset = updateOffset + allUpdates.length
  const edges: Edge[] = kept.slice()
  for (const edge of fixups.after) edges.push({ from: edge.from, to: edge.to + fixupOffset })
  if (allUpdates.length > 0) append(edges, findUpdateEdges(schema, inserts, allUpdates, updateOffset))
  if (deletes.length > 0) {
    append(edges, findUpdateDeleteEdges(allUpdates, updateOffset, deletes, deleteOffset))
    for (const edge of deletion.kept)
      edges.push({ from: edge.from + deleteOffset, to: edge.to + deleteOffset })
    for (const edge of nulling.before)
      edges.push({ from: edge.from + nullingOffset, to: edge.to + deleteOffset })
  }
  const statements = inserts.concat(allUpdates, deletes)
  // A unique value freed by one statement and taken by another: freed first, unless that order would
  // contradict the foreign keys' (then the server reports the duplicate, as it would have).
  const handoffs = findHandoffEdges(inserts, updates, updateOffset, deletes, deleteOffset)
  const sure = handoffs.length === 0 ? handoffs : handoffs.filter((edge) => edge.maybe !== true)
  if (sure.length > 0) {
    const ordered = edges.concat(sure)
    if (acyclic(statements.length, ordered)) append(edges, sure)
  }
  // Deletes before the delete whose cascade may remove the rows they reference, each only where it
  // contradicts no order above (the rows they reference are not known).
  if (deletes.length > 1) {
    for (const edge of findCascadeDeleteEdges(deletes, deleteOffset)) {
      edges.push(edge)
      if (!acyclic(statements.length, edges)) edges.pop()
    }
    // Then a delete whose cascade removes rows that reference another delete's rows, before it.
    for (const edge of findCascadeFreeingEdges(deletes, deleteOffset)) {
      edges.push(edge)
      if (!acyclic(statements.length, edges)) edges.pop()
    }
  }
  // A value a lookup may take (a reference to an upserted row, which may or may not be the freed
  // one): freed first, last of all orders, each only where it contradicts none of them.
  if (sure.length < handoffs.length) {
    for (const edge of handoffs) {
      if (edge.maybe !== true) continue
      edges.push(edge)
      if (!acyclic(statements.length, edges)) edges.pop()
    }
  }
  const waves = orderInWaves(statements.length, edges, deleteOffset)
  for (const wave of waves) {
    if (wave.length > 1 && !inOrder(statements, wave))
      wave.sort((a, b) => compareDrafts(statements[a]!, statements[b]!) || a - b)
  }
  return { statements, waves }
}

/** No delete's foreign key is set to NULL first. */
const NO_NULLING: NullingFixups = { drafts: [], before: [] }

/** No insert waits for another, and none is fixed up. */
const NO_INSERT_ORDER: { readonly kept: readonly InsertEdge[]; readonly fixups: Fixups } = {
  kept: [],
  fixups: { drafts: [], after: [] },
}

/**
 * Whether a wave (indexes in increasing order) is in statement order already: the sort would keep it
 * as it is. The usual flush's is (its drafts come grouped in that order), and then it is not sorted.
 */
function inOrder(statements: readonly StatementDraft[], wave: readonly number[]): boolean {
  for (let i = 1; i < wave.length; i++)
    if (compareDrafts(statements[wave[i - 1]!]!, statements[wave[i]!]!) > 0) return false
  return true
}

function append<T>(to: T[], from: readonly T[]): void {
  for (let i = 0; i < from.length; i++) to.push(from[i]!)
}
