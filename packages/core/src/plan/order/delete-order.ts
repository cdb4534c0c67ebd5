import type { ForeignKeyModel } from '../../model/model.ts'
import { normalizeKeyValue } from '../../values/index.ts'
import type { StatementDraft, StoredInput } from '../draft.ts'
import { acyclic, breakCycles } from './cycles.ts'
import { DELETE_ORDER_LIKELY, type DeleteEdge, type Edge, findDeleteEdges } from './dependency-graph.ts'
import { emptyFixup } from './fixups.ts'

/** The order of a flush's deletes: the edges kept, and those broken to undo a cycle. */
export interface DeleteOrder {
  /** Delete before delete, indexes into the deletes. */
  readonly kept: readonly Edge[]
  /** The edges a cycle was broken at, indexes into the deletes (see {@link nullingFixups}). */
  readonly broken: readonly DeleteEdge[]
}

/**
 * The delete-before-delete edges of a flush's deletes (indexes into them), following from the deletes'
 * tables alone (see `findDeleteEdges`), with cycles broken where the order matters least: at a
 * nullable foreign key (which {@link nullingFixups} sets to NULL first), else where the server
 * decides in the end.
 */
export function deleteOrder(deletes: readonly StatementDraft[]): DeleteOrder {
  if (deletes.length < 2) return NO_ORDER // one delete per table: a single one has nothing to wait for
  const edges = findDeleteEdges(deletes, 0)
  if (acyclic(deletes.length, edges)) return { kept: edges, broken: [] }
  const weighted = edges.map((edge) => ({ from: edge.from, to: edge.to, removable: true, cost: edge.weight }))
  const result = breakCycles(deletes.length, weighted)
  const removed = 'removed' in result ? result.removed : new Set<number>()
  return {
    kept: edges.filter((_, i) => !removed.has(i)),
    broken: edges.filter((_, i) => removed.has(i)),
  }
}

const NO_ORDER: DeleteOrder = { kept: [], broken: [] }

/** Fix-ups setting foreign keys to NULL before deletes, and the deletes each must precede. */
export interface NullingFixups {
  /** Fix-up updates, in statement order. */
  readonly drafts: StatementDraft[]
  /** Fix-up index (into {@link drafts}) before delete index (into the deletes). */
  readonly before: Edge[]
}

/**
 * For each cycle of deletes broken at a nullable foreign key C -> P (checked at once: not deferred,
 * no ON DELETE action), a fix-up UPDATE setting that key to NULL in the deleted C rows that reference
 * a deleted P row (as far as their stored values tell: see `referencingRows`), before the deletes of
 * P and of C: the P rows they referenced can then go first. (Without it the delete of P
 * failed on the C rows still referencing them, and the unit could not delete both in one flush.) One
 * fix-up per deleted table and set of columns; rows matched by key, the version neither checked nor
 * incremented (the delete checks it), as an insert's fix-up.
 *
 * @example
 * // person.best_friend_id -> pet (nullable), pet.owner_id -> person: both deleted
 * nullingFixups(deletes, order.broken).drafts // [update (fix-up) person set best_friend_id = null]
 */
export function nullingFixups(
  deletes: readonly StatementDraft[],
  broken: readonly DeleteEdge[],
): NullingFixups {
  const drafts: StatementDraft[] = []
  const before: Edge[] = []
  for (const edge of broken) {
    if (edge.weight !== DELETE_ORDER_LIKELY) continue
    const child = deletes[edge.from]!
    const { table } = child
    const set = new Set(edge.fk.columns)
    const columns = table.columns.filter((c) => set.has(c.name)).map((c) => c.name)
    const rows = referencingRows(child, edge.fk, deletes[edge.to]!)
    if (rows.length === 0) continue
    let k = drafts.findIndex((d) => d.table === table && sameColumns(d.columns, columns))
    if (k < 0) {
      k = drafts.push(nullingDraft(child, columns, rows)) - 1
      before.push({ from: k, to: edge.from })
    } else addRows(drafts[k]!, child, rows)
    before.push({ from: k, to: edge.to })
  }
  return { drafts, before }
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i])
}

/**
 * The rows of the delete `child` that may reference, through `fk`, a row the delete `parent` removes:
 * an entity whose stored value (its snapshot) names one of `parent`'s keys; a change set's row (its
 * stored values unknown), or one whose key is referenced another way than by `parent`'s own key, in
 * any case. An entity whose stored key is null or another row's references none.
 */
function referencingRows(child: StatementDraft, fk: ForeignKeyModel, parent: StatementDraft): number[] {
  const target = parent.table
  // The referenced columns in the parent's key order, when they are its key.
  const at = target.primaryKey.map((name) => fk.targetColumns.indexOf(name))
  const byKey = at.length === fk.targetColumns.length && at.every((i) => i >= 0)
  const keys = byKey ? new Set(parent.keyIds.map(keyText)) : undefined
  const out: number[] = []
  for (let r = 0; r < child.rows.length; r++) {
    const stored = (child.rows[r] as StoredInput).state?.snapshot
    if (stored === undefined || stored === null || keys === undefined) {
      out.push(r)
      continue
    }
    const parts: string[] = []
    for (let i = 0; i < at.length; i++) {
      const value = stored[fk.columns[at[i]!]!]
      if (value === undefined || value === null) break
      parts.push(normalizeKeyValue(value, child.table.columnsByName.get(fk.columns[at[i]!]!)!))
    }
    if (parts.length === at.length && keys.has(parts.join('\u0000'))) out.push(r)
  }
  return out
}

/** A key's canonical forms as one text (no canonical form holds a NUL character). */
function keyText(id: string | readonly string[] | undefined): string {
  return typeof id === 'string' ? id : (id ?? []).join('\u0000')
}

/** The fix-up setting `columns` of the rows `rows` of the delete `child` to NULL, matched by key. */
function nullingDraft(
  child: StatementDraft,
  columns: readonly string[],
  rows: readonly number[],
): StatementDraft {
  const { table } = child
  const keyCount = table.primaryKey.length
  const draft = emptyFixup(table, columns, undefined)
  addRows(draft, child, rows, keyCount)
  return draft
}

/** Adds the rows `rows` of `child` to a nulling fix-up (each once: a row two cycles break is set once). */
function addRows(
  draft: StatementDraft,
  child: StatementDraft,
  rows: readonly number[],
  keyCount = child.table.primaryKey.length,
): void {
  // Found in a set made once per call (a change set's cycle may null every row of a large delete).
  const have = draft.rows.length === 0 ? undefined : new Set(draft.rows)
  for (const r of rows) {
    const row = child.rows[r]!
    if (have?.has(row) === true) continue
    draft.rows.push(row)
    draft.keys.push(child.keys[r])
    draft.keyIds.push(child.keyIds[r])
    for (let i = 0; i < keyCount; i++) draft.params[i]!.push(child.params[i]![r]!)
    for (let i = keyCount; i < draft.params.length; i++) draft.params[i]!.push(null)
    for (const values of draft.values.values()) values.push(null)
  }
}
