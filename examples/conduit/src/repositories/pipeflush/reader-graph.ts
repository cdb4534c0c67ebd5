import type { RelationTree } from '@pipeflush/kysely'
import type { Relations } from '../../relations.ts'
import type { DB } from '../../schema.ts'
import type { Reader } from '../types.ts'
import type { Article, ConduitEm, User } from './types.ts'

// A tree read at many-to-one places (an article's author): no $limit.
type UserTree = RelationTree<DB, Relations, 'app_user', false>
type ArticleTree = RelationTree<DB, Relations, 'article'>

/**
 * What a profile needs of a user beside its row: the reader's follow row of them, if any (a relation
 * filtered by the reader, in the same message as the user: tracked, so an unfollow removes it without
 * reading it again). Nothing for an anonymous reader.
 *
 * @example
 * await em.findOne('app_user', { username }, { with: profileTree(reader) })
 */
export function profileTree(reader: Reader): UserTree {
  return reader === undefined ? {} : { follows_by_followee: { $where: { follower_id: reader } } }
}

/**
 * What an article view needs beside its row, in the same message: its author as a profile, its tags,
 * the reader's favorite row (if any) and its favorites counted (not read).
 *
 * @example
 * await em.load(query, { with: articleTree(reader) })
 */
export function articleTree(reader: Reader): ArticleTree {
  return {
    author: profileTree(reader),
    tags: true,
    ...(reader === undefined ? {} : { favorites: { $where: { user_id: reader } } }),
    $count: ['favorites'],
  }
}

/** Whether `reader` follows `user`, read with {@link profileTree}. */
export function follows(em: ConduitEm, user: User, reader: Reader): boolean {
  return reader !== undefined && em.related(user, 'follows_by_followee').some((f) => f.follower_id === reader)
}

/** Whether `reader` favorited `article`, read with {@link articleTree}. */
export function favorited(em: ConduitEm, article: Article, reader: Reader): boolean {
  return reader !== undefined && em.related(article, 'favorites').some((f) => f.user_id === reader)
}
