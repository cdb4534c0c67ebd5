import type { TableModel } from '../../model/model.ts'
import { type Cell, compareDrafts, Slot, type StatementDraft } from '../draft.ts'
import { makeCells } from '../rows/encode-cells.ts'
import type { Edge, InsertEdge } from './dependency-graph.ts'

/** Fix-up statements and the inserts each must follow. */
export interface Fixups {
  /** Fix-up updates, in statement order. */
  readonly drafts: StatementDraft[]
  /** Insert index before fix-up index (into {@link drafts}). */
  readonly after: Edge[]
}

/**
 * Can an insert edge be broken: is every foreign key behind it fully nullable, and, in an upsert, one
 * its conflict overwrites, on the primary key? (A fix-up of a column the upsert leaves alone on
 * conflict, as `update: []` does, would change the row that was there; and a fix-up finds its row by
 * the key drawn for it, which a row that was there does not have when the conflict is on another
 * unique key.)
 */
export function isBreakable(edge: InsertEdge, insert: StatementDraft): boolean {
  const { table, upsert } = insert
  // A fix-up finds its row by key: an upsert's row that was there keeps its own, not the one drawn.
  if (upsert !== undefined && !sameSet(upsert.conflict, table.primaryKey)) return false
  return edge.references.every(({ fk }) =>
    fk.columns.every(
      (name) =>
        table.columnsByName.get(name)?.nullable === true &&
        (upsert === undefined || upsert.update.includes(name)),
    ),
  )
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name) => b.includes(name))
}

/** Rows a broken edge sends to fix-ups. */
export function fixupCost(edge: InsertEdge): number {
  return new Set(edge.references.map((reference) => reference.row)).size
}

/** A row of an insert whose foreign key columns `columns` go to a fix-up. */
interface PendingFixup {
  readonly insert: StatementDraft
  readonly row: number
  readonly columns: Set<string>
  readonly after: Set<number>
}

/** An empty fix-up draft of `table` setting `columns` (in table order). */
function fixupDraft(insert: StatementDraft, columns: readonly string[]): StatementDraft {
  return emptyFixup(insert.table, columns, insert.snapshots === undefined ? undefined : [])
}

/**
 * An empty fix-up update of `table` setting `columns` (in table order), its rows matched by key: an
 * insert's (see {@link breakInsertEdges}) or a delete's (see `nullingFixups`).
 */
export function emptyFixup(
  table: TableModel,
  columns: readonly string[],
  snapshots: StatementDraft['snapshots'],
): StatementDraft {
  return {
    kind: 'update',
    table,
    columns,
    fixup: true,
    rows: [],
    keys: [],
    keyIds: [],
    params: [...table.primaryKey, ...columns].map(() => []),
    paramColumns: [...table.primaryKey, ...columns],
    slotted: [...table.primaryKey, ...columns].map(() => false),
    values: new Map(columns.map((name) => [name, []])),
    snapshots,
  }
}

/**
 * Breaks insert edges: each referencing row inserts the foreign key columns as NULL, and a fix-up UPDATE
 * (one per table and set of columns) sets them once both rows exist, with the cells the insert had
 * (slots included). Mutates the inserts' cells.
 */
export function breakInsertEdges(inserts: readonly StatementDraft[], broken: readonly InsertEdge[]): Fixups {
  if (broken.length === 0) return { drafts: [], after: [] }
  const pending = new Map<string, PendingFixup>()
  for (const edge of broken) {
    const insert = inserts[edge.to]!
    makeCells(insert) // its cells move to the fix-up
    for (const { row, fk } of edge.references) {
      const id = `${edge.to}:${row}`
      let fixup = pending.get(id)
      if (fixup === undefined) {
        fixup = { insert, row, columns: new Set(), after: new Set([edge.to]) }
        pending.set(id, fixup)
      }
      for (const name of fk.columns) fixup.columns.add(name)
      fixup.after.add(edge.from)
    }
  }
  const groups = new Map<string, { draft: StatementDraft; after: Set<number> }>()
  for (const { insert, row, columns, after } of pending.values()) {
    const { table } = insert
    const ordered = table.columns.filter((c) => columns.has(c.name)).map((c) => c.name)
    const id = JSON.stringify([table.key, ordered])
    let group = groups.get(id)
    if (group === undefined) {
      group = { draft: fixupDraft(insert, ordered), after: new Set() }
      groups.set(id, group)
    }
    const { draft } = group
    draft.rows.push(insert.rows[row]!)
    draft.keys.push(insert.keys[row])
    draft.keyIds.push(insert.keyIds[row])
    draft.snapshots?.push(insert.snapshots?.[row])
    const keyCount = table.primaryKey.length
    for (let i = 0; i < keyCount; i++) {
      const at = insert.columns.indexOf(table.primaryKey[i]!)
      const cell: Cell = at < 0 ? '' : (insert.params[at]![row] ?? '')
      draft.params[i]!.push(cell)
      if (cell instanceof Slot) draft.slotted[i] = true
    }
    ordered.forEach((name, i) => {
      draft.values.get(name)!.push(insert.values.get(name)?.[row])
      const at = insert.columns.indexOf(name)
      const cell: Cell = at < 0 ? null : (insert.params[at]![row] ?? null)
      draft.params[keyCount + i]!.push(cell)
      if (cell instanceof Slot) draft.slotted[keyCount + i] = true
      if (at >= 0) insert.params[at]![row] = null
    })
    for (const insertIndex of after) group.after.add(insertIndex)
  }
  const sorted = [...groups.values()].sort((a, b) => compareDrafts(a.draft, b.draft))
  return {
    drafts: sorted.map((group) => group.draft),
    after: sorted.flatMap((group, i) =>
      [...group.after].sort((a, b) => a - b).map((from) => ({ from, to: i })),
    ),
  }
}
