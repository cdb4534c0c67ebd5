import type { TableModel } from '../schema/model.ts'
import { ShapeCache } from './shape-cache.ts'
import { deleteSql } from './sql/delete-sql.ts'
import { insertSql } from './sql/insert-sql.ts'
import type { RowsForm } from './sql/sql-text.ts'
import { updateSql } from './sql/update-sql.ts'
import { onConflictSql } from './sql/upsert-sql.ts'
import type { PlannedStatement, StatementKind, UpsertSpec } from './types.ts'

/** The texts of the statement shapes seen, per table (shared by the models of one table definition). */
const texts = new ShapeCache<string>()

/**
 * The SQL text of a statement shape: (table, kind, column set, fix-up or not, upsert spec, one row or
 * any number: see `RowsForm`). The text depends on nothing else, so it is built once per shape and
 * table definition and then looked up.
 */
export function statementSql(
  table: TableModel,
  kind: StatementKind,
  columns: readonly string[],
  fixup: boolean,
  upsert: UpsertSpec | undefined,
  form: RowsForm = 'rows',
): string {
  // No identifier holds a NUL character, so the joined list names one column list only.
  let id = `${kind}${fixup ? '!' : ''}${form === 'row' ? '1' : ''}\u0000${columns.join('\u0000')}`
  if (upsert !== undefined)
    id += `\u0001${upsert.conflict.join('\u0000')}\u0001${upsert.update.join('\u0000')}`
  return texts.get(table, id, () => buildSql(table, kind, columns, fixup, upsert, form))
}

function buildSql(
  table: TableModel,
  kind: StatementKind,
  columns: readonly string[],
  fixup: boolean,
  upsert: UpsertSpec | undefined,
  form: RowsForm,
): string {
  if (kind === 'insert') return insertSql(table, columns, [], form) + (upsert ? onConflictSql(upsert) : '')
  if (kind === 'update') return updateSql(table, columns, fixup, [], form)
  return deleteSql(table, form)
}

/**
 * The form of a planned statement's SQL: `row` when it writes exactly one row (its parameters are
 * that row's texts), else `rows` (one `text[]` per parameter column).
 */
export function statementForm(statement: Pick<PlannedStatement, 'rowCount'>): RowsForm {
  return statement.rowCount === 1 ? 'row' : 'rows'
}
