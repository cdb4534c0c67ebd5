import type { ColumnModel } from '@pipeflush/core'
import { type RawBuilder, sql } from 'kysely'

/**
 * The select-list expression of `column` whose result {@link decodeText} reads: `col::text`, and for
 * timestamps the epoch in milliseconds as text (exact, any session time zone, BC and infinity
 * included). Arrays as `text[]` (timestamp arrays flattened to one dimension).
 *
 * @example
 * textSelection(['b'], titleColumn) // b."title"::text
 */
export function textSelection(qualifier: readonly string[], column: ColumnModel): RawBuilder<unknown> {
  const ref = sql.id(...qualifier, column.name)
  const isTimestamp = column.type === 'timestamp' || column.type === 'timestamptz'
  if (!column.isArray) return isTimestamp ? sql`(extract(epoch from ${ref}) * 1000)::text` : sql`${ref}::text`
  if (!isTimestamp) return sql`${ref}::text[]`
  return sql`case when ${ref} is null then null else coalesce((select array_agg((extract(epoch from e) * 1000)::text order by o) from unnest(${ref}) with ordinality as u(e, o)), '{}'::text[]) end`
}
