import type { TableModel } from '../schema/model.ts'
import { compareKeyValues } from '../values/index.ts'
import { type RowDraft, type StatementDraft, serverKeyed } from './drafts.ts'
import { sortRowsByKey } from './row-order.ts'
import { updateIsVersioned } from './sql/update-sql.ts'
import { statementForm, statementSql } from './statement-sql.ts'
import type { PlannedStatement } from './types.ts'

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

/** The rows' texts of the draft column at `index`. */
function columnParam(rows: readonly RowDraft[], index: number): (string | null)[] {
  const out: (string | null)[] = new Array(rows.length)
  for (let r = 0; r < rows.length; r++) out[r] = rows[r]!.texts[index] ?? null
  return out
}

/** The rows' texts of each draft column, in the draft's column order. */
function columnParams(rows: readonly RowDraft[], columns: readonly string[]): (string | null)[][] {
  const out: (string | null)[][] = new Array(columns.length)
  for (let c = 0; c < columns.length; c++) out[c] = columnParam(rows, c)
  return out
}

/** The rows' key texts, one parameter per primary key column. */
function keyParams(rows: readonly RowDraft[], keyColumns: readonly unknown[]): string[][] {
  return keyColumns.map((_, i) => {
    const out: string[] = new Array(rows.length)
    for (let r = 0; r < rows.length; r++) out[r] = rows[r]!.keyTexts[i]!
    return out
  })
}

function keysOf(rows: readonly RowDraft[]): unknown[] {
  const out: unknown[] = new Array(rows.length)
  for (let r = 0; r < rows.length; r++) out[r] = rows[r]!.key
  return out
}

function versionParams(rows: readonly RowDraft[], versioned: boolean): (string | null)[][] {
  if (!versioned) return []
  const out: (string | null)[] = new Array(rows.length)
  for (let r = 0; r < rows.length; r++) out[r] = rows[r]!.versionText
  return [out]
}

/**
 * Turns a draft into its {@link PlannedStatement}: rows sorted by primary key (an insert of rows whose
 * key the server fills keeps their order and lists their `sources`), SQL text from the
 * (table, kind, column set, one row or several) only, the rows' texts of each parameter column in the
 * SQL's order (sent as one `text[]` each, or for one row as the texts themselves).
 *
 * @example
 * buildStatement({ kind: 'delete', table: tag, columns: [], fixup: false, rows }).sql
 * // 'with w as (delete from "public"."tag" as t using unnest($1::text[]) as d("id") where ...'
 */
export function buildStatement(draft: StatementDraft): PlannedStatement {
  const { table, kind, fixup, upsert } = draft
  const keyless = serverKeyed(draft)
  // Rows whose key the server fills keep the change set's order: their keys come back in it.
  const rows = upsert
    ? sortByColumns(table, upsert.conflict, draft.rows)
    : keyless
      ? draft.rows
      : sortRowsByKey(table, draft.rows)
  const sql = statementSql(
    table,
    kind,
    draft.columns,
    fixup,
    upsert,
    statementForm({ rowCount: rows.length }),
  )
  const base = { kind, table: table.key, rowCount: rows.length, keys: keysOf(rows), fixup }
  if (kind === 'insert') {
    return {
      ...base,
      columns: draft.columns,
      sql,
      ...(upsert ? { upsert } : {}),
      ...(keyless && !upsert ? { sources: rows.map((row) => row.source!) } : {}),
      params: columnParams(rows, draft.columns),
    }
  }
  if (kind === 'update') {
    return {
      ...base,
      columns: draft.columns,
      sql,
      params: [
        ...keyParams(rows, table.primaryKey),
        ...columnParams(rows, draft.columns),
        ...versionParams(rows, updateIsVersioned(table, fixup)),
      ],
    }
  }
  const versioned = table.versionColumn !== null
  return {
    ...base,
    columns: versioned ? [...table.primaryKey, table.versionColumn!] : [...table.primaryKey],
    sql,
    params: [...keyParams(rows, table.primaryKey), ...versionParams(rows, versioned)],
  }
}
