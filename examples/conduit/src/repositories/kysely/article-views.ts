import type { Kysely } from 'kysely'
import type { DB } from '../../schema.ts'
import type { ArticleRecord, ArticleView, Reader } from '../types.ts'

/**
 * `articles` as `reader` sees them, as a Kysely application reads it: their authors, their tags, their
 * favorites counts, then (signed in) which the reader favorited and which authors they follow, one
 * awaited query after the other, each for all the articles at once (no query per article).
 *
 * @example
 * const [view] = await articleViews(db, [article], reader)
 */
export async function articleViews(
  db: Kysely<DB>,
  articles: readonly ArticleRecord[],
  reader: Reader,
): Promise<ArticleView[]> {
  if (articles.length === 0) return []
  const ids = articles.map((a) => a.id)
  const authorIds = [...new Set(articles.map((a) => a.author_id))]
  const authors = await db.selectFrom('app_user').selectAll().where('id', 'in', authorIds).execute()
  const tags = await db
    .selectFrom('article_tag')
    .innerJoin('tag', 'tag.id', 'article_tag.tag_id')
    .select(['article_tag.article_id', 'tag.name'])
    .where('article_tag.article_id', 'in', ids)
    .execute()
  const counts = await db
    .selectFrom('favorite')
    .select((eb) => ['article_id', eb.fn.countAll<string | number>().as('n')])
    .where('article_id', 'in', ids)
    .groupBy('article_id')
    .execute()
  const favorited =
    reader === undefined
      ? []
      : await db
          .selectFrom('favorite')
          .select('article_id')
          .where('user_id', '=', reader)
          .where('article_id', 'in', ids)
          .execute()
  const followed =
    reader === undefined
      ? []
      : await db
          .selectFrom('follow')
          .select('followee_id')
          .where('follower_id', '=', reader)
          .where('followee_id', 'in', authorIds)
          .execute()
  const authorById = new Map(authors.map((u) => [u.id, u]))
  const favoritedIds = new Set(favorited.map((f) => f.article_id))
  const followedIds = new Set(followed.map((f) => f.followee_id))
  const countOf = new Map(counts.map((c) => [c.article_id, Number(c.n)]))
  return articles.map((article) => {
    const author = authorById.get(article.author_id)
    if (!author) throw new Error(`article ${article.id} has no author`)
    return {
      article,
      author: { user: author, following: followedIds.has(author.id) },
      tags: tags
        .filter((t) => t.article_id === article.id)
        .map((t) => t.name)
        .sort(),
      favorited: favoritedIds.has(article.id),
      favoritesCount: countOf.get(article.id) ?? 0,
    }
  })
}
