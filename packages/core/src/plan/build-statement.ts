import type { TableModel } from '../schema/model.ts'
import { compareKeyValues } from '../values/index.ts'
import type { RowDraft, StatementDraft } from './drafts.ts'
import { deleteSql } from './sql/delete-sql.ts'
import { insertSql } from './sql/insert-sql.ts'
import { updateIsVersioned, updateSql } from './sql/update-sql.ts'
import { onConflictSql } from './sql/upsert-sql.ts'
import type { PlannedStatement } from './types.ts'

/** Orders rows by primary key, column by column, so concurrent flushes lock rows in one order. */
function sortRows(table: TableModel, rows: readonly RowDraft[]): RowDraft[] {
  const columns = table.primaryKey.map((name) => table.columnsByName.get(name)!)
  return [...rows].sort((a, b) => {
    for (let i = 0; i < columns.length; i++) {
      const order = compareKeyValues(a.keyValues[i], b.keyValues[i], columns[i]!)
      if (order !== 0) return order
    }
    return 0
  })
}

/** Orders upsert rows by their conflict columns: concurrent upserts lock the same rows in one order. */
function sortByColumns(table: TableModel, names: readonly string[], rows: readonly RowDraft[]): RowDraft[] {
  const columns = names.map((name) => table.columnsByName.get(name)!)
  return [...rows].sort((a, b) => {
    for (const column of columns) {
      const order = compareKeyValues(a.values[column.name], b.values[column.name], column)
      if (order !== 0) return order
    }
    return 0
  })
}

/** One parameter per unnest column: the rows' texts of that column. */
function columnParams(rows: readonly RowDraft[], read: (row: RowDraft) => string | null): (string | null)[] {
  return rows.map(read)
}

/**
 * Turns a draft into its {@link PlannedStatement}: rows sorted by primary key, SQL text from the
 * (table, kind, column set) only, one `text[]` parameter per unnest column in the SQL's order.
 */
export function buildStatement(draft: StatementDraft): PlannedStatement {
  const { table, kind, fixup } = draft
  const rows = draft.upsert
    ? sortByColumns(table, draft.upsert.conflict, draft.rows)
    : sortRows(table, draft.rows)
  const keyParams = table.primaryKey.map((_, i) => columnParams(rows, (row) => row.keyTexts[i]!))
  const base = { kind, table: table.key, rowCount: rows.length, keys: rows.map((row) => row.key), fixup }
  if (kind === 'insert') {
    return {
      ...base,
      columns: draft.columns,
      sql: insertSql(table, draft.columns) + (draft.upsert ? onConflictSql(draft.upsert) : ''),
      ...(draft.upsert ? { upsert: draft.upsert } : {}),
      params: draft.columns.map((name) => columnParams(rows, (row) => row.texts.get(name) ?? null)),
    }
  }
  const versionParams = (versioned: boolean): (string | null)[][] =>
    versioned ? [columnParams(rows, (row) => row.versionText)] : []
  if (kind === 'update') {
    return {
      ...base,
      columns: draft.columns,
      sql: updateSql(table, draft.columns, fixup),
      params: [
        ...keyParams,
        ...draft.columns.map((name) => columnParams(rows, (row) => row.texts.get(name) ?? null)),
        ...versionParams(updateIsVersioned(table, fixup)),
      ],
    }
  }
  const versioned = table.versionColumn !== null
  return {
    ...base,
    columns: versioned ? [...table.primaryKey, table.versionColumn!] : [...table.primaryKey],
    sql: deleteSql(table),
    params: [...keyParams, ...versionParams(versioned)],
  }
}
