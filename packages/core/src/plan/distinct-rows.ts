import { PipeflushError } from '../errors.ts'
import type { TableModel } from '../schema/model.ts'
import { type RowDraft, type StatementDraft, serverKeyed } from './drafts.ts'
import { rowKeyComparator, sameRowKey } from './row-order.ts'
import type { StatementKind } from './types.ts'

/** The key as messages show it: the JSON list of its canonical forms (`["7"]`). */
function shownKey(row: RowDraft): string {
  return JSON.stringify(row.keyIds)
}

function twiceError(table: TableModel, row: RowDraft, previous: StatementKind, kind: StatementKind) {
  if (previous === 'insert' && kind === 'insert') {
    return new PipeflushError(
      'DUPLICATE_KEY',
      `Two new rows of "${table.key}" share the key ${shownKey(row)}.`,
      { table: table.key, keys: [row.key] },
    )
  }
  return new PipeflushError(
    'INVALID_STATE',
    `Table "${table.key}": the row ${shownKey(row)} is changed twice (${previous}, then ${kind}) in one change set.`,
    { table: table.key, keys: [row.key] },
  )
}

/**
 * The rows of a table written by one plain statement, sorted by key in place (the order they are sent
 * in), neighbours compared: no lookup per row. False when the comparator ties two different keys
 * (then the caller looks rows up instead).
 */
function checkSortedDraft(draft: StatementDraft): boolean {
  const compare = rowKeyComparator(draft.table)
  // Rows already in key order (ids taken in order) cost one comparison each: the sort finds one run.
  const rows = draft.rows.sort(compare)
  for (let i = 1; i < rows.length; i++) {
    if (compare(rows[i - 1]!, rows[i]!) !== 0) continue
    if (!sameRowKey(rows[i - 1]!, rows[i]!)) return false
    throw twiceError(draft.table, rows[i]!, draft.kind, draft.kind)
  }
  return true
}

/** The rows of a table written by several statements: each key looked up in a map, in kind order. */
function checkByLookup(drafts: readonly StatementDraft[]): void {
  const seen = new Map<string, StatementKind>()
  for (const draft of drafts) {
    for (const row of draft.rows) {
      // No canonical form holds a NUL character (PostgreSQL text cannot): joining on it is unambiguous.
      const id = row.keyIds.length === 1 ? row.keyIds[0]! : row.keyIds.join('\u0000')
      const previous = seen.get(id)
      if (previous === undefined) seen.set(id, draft.kind)
      // An insert and a delete of one key is the unit of work's business (a replaced row).
      else if (!(previous === 'insert' && draft.kind === 'delete'))
        throw twiceError(draft.table, row, previous, draft.kind)
    }
  }
}

/**
 * Rejects a change set that writes one row twice: two new rows sharing a key (`DUPLICATE_KEY`), a row
 * inserted then updated, updated or deleted twice (`INVALID_STATE`). An insert and a delete of one key
 * pass (the unit of work replaces a removed row that way); rows whose key the server fills are not
 * compared (it is not known yet). A table written by one plain statement (the
 * common case, and every large flush) is checked by sorting its rows by key, which the statement needs
 * anyway: its draft's rows are left in key order.
 *
 * @example
 * checkDistinctRows([insertTags, updateAuthors]) // throws DUPLICATE_KEY if two new tags share a key
 */
export function checkDistinctRows(drafts: readonly StatementDraft[]): void {
  const byTable = new Map<TableModel, StatementDraft[]>()
  for (const draft of drafts) {
    if (serverKeyed(draft)) continue // keys not known yet: the server gives each row its own
    const list = byTable.get(draft.table)
    if (list) list.push(draft)
    else byTable.set(draft.table, [draft])
  }
  for (const list of byTable.values()) {
    // Upsert rows are sent in conflict-column order, not key order: they are looked up.
    const single = list.length === 1 && list[0]!.upsert === undefined
    if (!(single && checkSortedDraft(list[0]!))) checkByLookup(list)
  }
}
