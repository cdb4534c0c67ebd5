import { type RawBuilder, sql } from 'kysely'

/**
 * `= any($1::type[])` instead of Kysely's `in ($1, $2, ...)`: one SQL text whatever the number of
 * values, so the statement stays prepared on the connection (an `in` list of a new length is a new
 * statement text, described before it runs: one more round trip).
 *
 * @example
 * db.selectFrom('review').selectAll().where('book_id', '=', anyOf(ids, 'int8'))
 */
export function anyOf<T extends string | number>(
  values: readonly T[],
  type: 'text' | 'int4' | 'int8',
): RawBuilder<T> {
  return sql<T>`any(${[...values]}::${sql.raw(type)}[])`
}
