import type { TableModel } from '../../model/model.ts'
import { columnSql } from '../../schema/column-sql.ts'

/**
 * The alias of the `i`-th returned column: `r0, r1...`, so that returned rows do not depend on the
 * client's column-name transforms and never collide with `pipeflush_rows`.
 */
export function returnedAlias(i: number): string {
  return `r${i}`
}

/**
 * A returning list of `table`'s `columns` as text (see `decodeValue`), each qualified by `alias` when
 * given (an alias whose columns are named as the table's).
 *
 * Read as text, every value decodes the same, whatever the driver's own parsers.
 */
export function returnedList(table: TableModel, columns: readonly string[], alias?: string): string {
  const prefix = alias === undefined ? '' : `${alias}.`
  return columns
    .map((name, i) => `${prefix}${columnSql(table, name)}::text as ${returnedAlias(i)}`)
    .join(', ')
}
