import type { TableModel } from '../schema/model.ts'
import { deleteSql } from './sql/delete-sql.ts'
import { insertSql } from './sql/insert-sql.ts'
import { updateSql } from './sql/update-sql.ts'
import { onConflictSql } from './sql/upsert-sql.ts'
import type { StatementKind, UpsertSpec } from './types.ts'

/** Shapes remembered per table; past this many the table's texts are built afresh. */
const MAX_SHAPES_PER_TABLE = 256

/** Per table model, the texts of the statement shapes seen (a table model lives as long as its schema). */
const texts = new WeakMap<TableModel, Map<string, string>>()

/**
 * The SQL text of a statement shape: (table, kind, column set, fix-up or not, upsert spec). The text
 * depends on nothing else, so it is built once per shape and table model and then looked up.
 *
 * @example
 * statementSql(book, 'insert', ['id', 'title'], false) // 'insert into "public"."book" ("id", "title") ...'
 */
export function statementSql(
  table: TableModel,
  kind: StatementKind,
  columns: readonly string[],
  fixup: boolean,
  upsert: UpsertSpec | undefined,
): string {
  let shapes = texts.get(table)
  if (shapes === undefined) {
    shapes = new Map()
    texts.set(table, shapes)
  }
  // No identifier holds a NUL character, so the joined list names one column list only.
  let id = `${kind}${fixup ? '!' : ''}\u0000${columns.join('\u0000')}`
  if (upsert !== undefined)
    id += `\u0001${upsert.conflict.join('\u0000')}\u0001${upsert.update.join('\u0000')}`
  let sql = shapes.get(id)
  if (sql === undefined) {
    sql = buildSql(table, kind, columns, fixup, upsert)
    if (shapes.size >= MAX_SHAPES_PER_TABLE) shapes.clear()
    shapes.set(id, sql)
  }
  return sql
}

function buildSql(
  table: TableModel,
  kind: StatementKind,
  columns: readonly string[],
  fixup: boolean,
  upsert: UpsertSpec | undefined,
): string {
  if (kind === 'insert') return insertSql(table, columns) + (upsert ? onConflictSql(upsert) : '')
  if (kind === 'update') return updateSql(table, columns, fixup)
  return deleteSql(table)
}
