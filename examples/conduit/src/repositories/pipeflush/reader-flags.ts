import type { SelectQueryBuilder } from 'kysely'
import type { DB } from '../../schema.ts'
import type { Reader } from '../types.ts'
import type { ConduitEm } from './types.ts'

/**
 * Ids for an `in` condition: a list, or a subquery selecting them (so that the flags can be read in
 * the same tick as the rows they are about, before their ids are known).
 */
export type Ids = readonly number[] | SelectQueryBuilder<DB, keyof DB, Record<string, number>>

/**
 * The ids among `followeeIds` that `reader` follows: their follow rows, read with `load(query)` in
 * this tick's batch (tracked: an unfollow removes the row without reading it again). None for an
 * anonymous reader, without a query.
 *
 * `with` has no relation filtered by a value given at read time (the reader), so the follow rows are
 * selected by hand, `followeeIds` repeating the condition of the rows they are about.
 *
 * @example
 * const [user, followed] = await Promise.all([em.findOne('app_user', { username }), followedAmong(em, reader, byUsername)])
 */
export async function followedAmong(em: ConduitEm, reader: Reader, followeeIds: Ids): Promise<Set<number>> {
  if (reader === undefined || (Array.isArray(followeeIds) && followeeIds.length === 0)) return new Set()
  const rows = await em.load(
    em.db
      .selectFrom('follow')
      .selectAll()
      .where('follower_id', '=', reader)
      .where('followee_id', 'in', followeeIds),
  )
  return new Set(rows.map((f) => f.followee_id))
}

/**
 * The ids among `articleIds` that `reader` favorited: their favorite rows, read with `load(query)` in
 * this tick's batch (tracked: an unfavorite removes the row without reading it again). None for an
 * anonymous reader, without a query. Selected by hand for the same reason as {@link followedAmong}.
 */
export async function favoritedAmong(em: ConduitEm, reader: Reader, articleIds: Ids): Promise<Set<number>> {
  if (reader === undefined || (Array.isArray(articleIds) && articleIds.length === 0)) return new Set()
  const rows = await em.load(
    em.db
      .selectFrom('favorite')
      .selectAll()
      .where('user_id', '=', reader)
      .where('article_id', 'in', articleIds),
  )
  return new Set(rows.map((f) => f.article_id))
}
