import type { Kysely } from 'kysely'
import type { DB } from '../schema.ts'
import type { ArticleFilter } from './types.ts'

/**
 * The articles `filter` matches, as a Kysely select from `article` alone (each condition a subquery),
 * so that pipeflush's `load(query)` can track its rows: both implementations list and count with it.
 *
 * @example
 * const page = await matchingArticles(db, { tag: 'dragons' }).selectAll().orderBy('created_at', 'desc').limit(20).execute()
 */
export function matchingArticles(db: Kysely<DB>, filter: ArticleFilter) {
  let query = db.selectFrom('article')
  const { author, tag, favoritedBy, feedOf } = filter
  if (author !== undefined) {
    query = query.where(
      'author_id',
      'in',
      db.selectFrom('app_user').select('id').where('username', '=', author),
    )
  }
  if (tag !== undefined) {
    query = query.where(
      'id',
      'in',
      db
        .selectFrom('article_tag')
        .select('article_id')
        .where('tag_id', 'in', db.selectFrom('tag').select('id').where('name', '=', tag)),
    )
  }
  if (favoritedBy !== undefined) {
    query = query.where(
      'id',
      'in',
      db
        .selectFrom('favorite')
        .select('article_id')
        .where('user_id', 'in', db.selectFrom('app_user').select('id').where('username', '=', favoritedBy)),
    )
  }
  if (feedOf !== undefined) {
    query = query.where(
      'author_id',
      'in',
      db.selectFrom('follow').select('followee_id').where('follower_id', '=', feedOf),
    )
  }
  return query
}
