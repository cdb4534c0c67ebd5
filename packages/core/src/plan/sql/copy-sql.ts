import type { TableModel } from '../../model/model.ts'
import { columnSql } from '../../schema/column-sql.ts'

/**
 * The COPY that takes rows supplying `columns` (in table order) from the client in COPY's text format.
 * Columns a row does not supply take their DEFAULT, as with the insert; an `identity always` column
 * takes the value sent (COPY does what `overriding system value` does for INSERT).
 *
 * Large inserts go as COPY, which the server stores faster than an unnest (see `copiesRows`).
 */
export function copySql(table: TableModel, columns: readonly string[]): string {
  return `copy ${table.sqlName} (${columns.map((name) => columnSql(table, name)).join(', ')}) from stdin`
}
