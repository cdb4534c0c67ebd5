import type { ColumnModel, TableModel } from '../model/model.ts'
import { quoteIdentifier } from '../values/identifier.ts'
import { perTable } from './per-table.ts'

/** The column's name in the database: its `dbName`, else its name. */
export function dbNameOf(column: ColumnModel): string {
  return column.dbName ?? column.name
}

/**
 * The quoted identifier SQL uses for `table`'s column `name` (the name the API uses): its database
 * name, quoted. Made once per table and column. A name that is not a column of the table is quoted as
 * it is (the statement then fails on the server, as it would have).
 *
 * Every statement names a table's columns through it, so that columns the API calls otherwise (see
 * `ColumnModel.dbName`) are written and read under their database names.
 *
 * @example
 * columnSql(book, 'authorId') // '"author_id"'
 */
export function columnSql(table: TableModel, name: string): string {
  const quoted = quotedNames(table)
  let sql = quoted.get(name)
  if (sql === undefined) {
    const column = table.columnsByName.get(name)
    sql = quoteIdentifier(column === undefined ? name : dbNameOf(column))
    quoted.set(name, sql)
  }
  return sql
}

const quotedNames = perTable(() => new Map<string, string>())
