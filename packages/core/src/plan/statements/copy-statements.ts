import type { TableModel } from '../../model/model.ts'

/**
 * Whether a plain insert of `rows` rows into `table` that returns nothing goes as COPY: at least
 * `minRows` rows, into a table COPY treats like INSERT (`TableModel.copyable`). The server stores
 * large batches of rows about twice as fast that way as through INSERT's unnest (it writes them a page
 * at a time), and parses no array.
 */
export function copiesRows(table: TableModel, rows: number, minRows: number): boolean {
  return table.copyable && rows >= minRows
}
