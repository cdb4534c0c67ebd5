import type { ColumnModel } from '@pipeflush/core'
import { type RawBuilder, sql } from 'kysely'

/**
 * The select-list expression of `column` for `load(query)`: `col::text`, exactly what `em.find`
 * selects, decoded by core's `decodeValue`, so loaded values do not depend on the client's type
 * parsers (and arrays come as their literal text, parsed by pipeflush). The column is named as the
 * database names it (`dbName`, for a schema that keys it otherwise).
 */
export function textSelection(qualifier: readonly string[], column: ColumnModel): RawBuilder<unknown> {
  return sql`${sql.id(...qualifier, column.dbName ?? column.name)}::text`
}
