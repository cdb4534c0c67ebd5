import type { SchemaModel } from '../../model/model.ts'
import { compareDrafts, type StatementDraft, upsertId } from '../draft.ts'
import { acyclic } from './cycles.ts'
import { orderDeletes } from './delete-order.ts'
import { type Edge, findUpdateDeleteEdges, orderedForeignKeys } from './dependency-graph.ts'
import { orderInWaves } from './waves.ts'

/** Sets of statement shapes whose order a schema keeps at most; past this many it starts afresh. */
const MAX_ORDERS = 512

/** Per schema model, the waves of each set of statement shapes (null: not ordered by shape). */
const orders = new WeakMap<SchemaModel, Map<string, readonly (readonly number[])[] | null>>()

/**
 * The waves of a flush's statements told from their shapes alone (each statement's kind, table and
 * columns), the same for every flush of those shapes, so found once per set of shapes and kept:
 * - insert(P) before insert(C) whenever C has a foreign key to P (not initially deferred), whether or
 *   not a new C row references a new P row;
 * - insert(P) before an update of C that sets a foreign key to P;
 * - updates before deletes and deletes among themselves as `orderStatements` orders them (by table
 *   already).
 * This order is a superset of what the rows need (see `orderStatements`): any row order it allows is
 * allowed by theirs. It may hold more waves than the rows need (an insert of C whose rows reference
 * no new P row still follows P's insert), which costs nothing where the plan is one message (`burst`)
 * or one statement at a time (`off`).
 *
 * Undefined where the shapes cannot be ordered so: their inserts' foreign keys make a cycle between
 * tables, which only the rows can break (fix-ups). A table referencing itself is no such cycle: rows
 * referencing rows of the same statement need no order.
 *
 * `statements`: inserts, updates, deletes, each sorted by `compareDrafts`, as `orderStatements` takes
 * them; the waves index into that list, each wave sorted as `orderStatements` sorts its own.
 *
 * @example
 * const waves = shapeOrder(schema, inserts, updates, deletes) // [[0], [1, 2]]: customer, then purchase and payment
 */
export function shapeOrder(
  schema: SchemaModel,
  inserts: readonly StatementDraft[],
  updates: readonly StatementDraft[],
  deletes: readonly StatementDraft[],
): readonly (readonly number[])[] | undefined {
  let byShapes = orders.get(schema)
  if (byShapes === undefined) {
    byShapes = new Map()
    orders.set(schema, byShapes)
  }
  const key = shapesKey(inserts, updates, deletes)
  let waves = byShapes.get(key)
  if (waves === undefined) {
    waves = orderByShapes(inserts, updates, deletes)
    if (byShapes.size >= MAX_ORDERS) byShapes.clear()
    byShapes.set(key, waves)
  }
  return waves ?? undefined
}

/** The shapes of a flush's statements as one text: kind, table, columns and upsert of each, in order. */
function shapesKey(
  inserts: readonly StatementDraft[],
  updates: readonly StatementDraft[],
  deletes: readonly StatementDraft[],
): string {
  let key = ''
  for (const list of [inserts, updates, deletes]) {
    for (let i = 0; i < list.length; i++) {
      const d = list[i]!
      key += `${d.kind}\u0001${d.table.key}\u0001${d.columns.join('\u0002')}`
      if (d.upsert !== undefined) key += `\u0001${upsertId(d)}`
      key += '\u0000'
    }
  }
  return key
}

/** {@link shapeOrder}'s waves, found from the shapes; null when their inserts' foreign keys make a cycle. */
function orderByShapes(
  inserts: readonly StatementDraft[],
  updates: readonly StatementDraft[],
  deletes: readonly StatementDraft[],
): number[][] | null {
  const insertEdges: Edge[] = []
  for (let to = 0; to < inserts.length; to++) {
    for (const fk of orderedForeignKeys(inserts[to]!.table)) {
      for (let from = 0; from < inserts.length; from++) {
        if (from !== to && inserts[from]!.table.key === fk.target) insertEdges.push({ from, to })
      }
    }
  }
  if (!acyclic(inserts.length, insertEdges)) return null
  const updateOffset = inserts.length
  const deleteOffset = updateOffset + updates.length
  const edges: Edge[] = [...insertEdges]
  updates.forEach((draft, u) => {
    for (const fk of orderedForeignKeys(draft.table)) {
      if (!fk.columns.some((name) => draft.columns.includes(name))) continue
      inserts.forEach((insert, from) => {
        if (insert.table.key === fk.target) edges.push({ from, to: u + updateOffset })
      })
    }
  })
  edges.push(...findUpdateDeleteEdges(updates, updateOffset, deletes, deleteOffset))
  edges.push(...orderDeletes(deletes, deleteOffset))
  const statements = [...inserts, ...updates, ...deletes]
  const waves = orderInWaves(statements.length, edges)
  for (const wave of waves) wave.sort((a, b) => compareDrafts(statements[a]!, statements[b]!) || a - b)
  return waves
}
