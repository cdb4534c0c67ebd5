import { PipeflushError } from '../errors.ts'
import type { ColumnModel, TableModel } from '../schema/model.ts'

/**
 * The column `name` of `table` if the application may write it; else a clear error at once:
 * `UNKNOWN_COLUMN` naming the table's columns, or `INVALID_STATE` for a generated column.
 *
 * @example
 * writableColumn(book, 'title') // the column model
 */
export function writableColumn(table: TableModel, name: string): ColumnModel {
  const column = table.columnsByName.get(name)
  if (!column) {
    const columns = table.columns.map((c) => c.name).join(', ')
    throw new PipeflushError(
      'UNKNOWN_COLUMN',
      `${table.key} has no column "${name}" (columns: ${columns}).`,
      {
        table: table.key,
        column: name,
      },
    )
  }
  if (column.generated) {
    throw new PipeflushError(
      'INVALID_STATE',
      `${table.key}.${name} is a generated column and cannot be written.`,
      {
        table: table.key,
        column: name,
      },
    )
  }
  return column
}
