import type { TableModel } from '../schema/model.ts'
import { emptyRow } from '../track/row.ts'
import type { Edge, InsertEdge } from './dependency-graph.ts'
import { compareDrafts, type RowDraft, type StatementDraft } from './drafts.ts'

/** Fix-up statements and the inserts each must follow. */
export interface Fixups {
  /** Fix-up updates, in statement order. */
  readonly drafts: StatementDraft[]
  /** Insert index before fix-up index (into {@link drafts}). */
  readonly after: Edge[]
}

/** Can an insert edge be broken: is every foreign key behind it fully nullable? */
export function isBreakable(edge: InsertEdge, table: TableModel): boolean {
  return edge.references.every(({ fk }) =>
    fk.columns.every((name) => table.columnsByName.get(name)?.nullable === true),
  )
}

/** Rows a broken edge sends to fix-ups. */
export function fixupCost(edge: InsertEdge): number {
  return new Set(edge.references.map((reference) => reference.row)).size
}

interface PendingFixup {
  readonly table: TableModel
  /** The columns of the row's insert (the order of its texts). */
  readonly insertColumns: readonly string[]
  readonly row: RowDraft
  readonly columns: Set<string>
  readonly after: Set<number>
}

/**
 * Breaks insert edges: each referencing row inserts the foreign key columns as NULL, and a fix-up UPDATE
 * (one per table and set of columns) sets them once both rows exist. Mutates the rows' texts.
 */
export function breakInsertEdges(inserts: readonly StatementDraft[], broken: readonly InsertEdge[]): Fixups {
  const pending = new Map<RowDraft, PendingFixup>()
  for (const edge of broken) {
    const { table, columns: insertColumns } = inserts[edge.to]!
    for (const { row, fk } of edge.references) {
      let fixup = pending.get(row)
      if (fixup === undefined) {
        fixup = { table, insertColumns, row, columns: new Set(), after: new Set([edge.to]) }
        pending.set(row, fixup)
      }
      for (const name of fk.columns) fixup.columns.add(name)
      fixup.after.add(edge.from)
    }
  }
  const groups = new Map<string, { draft: StatementDraft; after: Set<number> }>()
  for (const { table, insertColumns, row, columns, after } of pending.values()) {
    const ordered = table.columns.filter((c) => columns.has(c.name)).map((c) => c.name)
    const values = emptyRow() // a column may be named __proto__
    const texts: (string | null)[] = []
    for (const name of ordered) {
      const at = insertColumns.indexOf(name)
      values[name] = row.values[name]
      texts.push(at < 0 ? null : (row.texts[at] ?? null))
      if (at >= 0) row.texts[at] = null
    }
    const id = JSON.stringify([table.key, ordered])
    let group = groups.get(id)
    if (group === undefined) {
      group = { draft: { kind: 'update', table, columns: ordered, fixup: true, rows: [] }, after: new Set() }
      groups.set(id, group)
    }
    group.draft.rows.push({ ...row, values, texts, versionText: null })
    for (const insert of after) group.after.add(insert)
  }
  const sorted = [...groups.values()].sort((a, b) => compareDrafts(a.draft, b.draft))
  return {
    drafts: sorted.map((group) => group.draft),
    after: sorted.flatMap((group, i) =>
      [...group.after].sort((a, b) => a - b).map((from) => ({ from, to: i })),
    ),
  }
}
