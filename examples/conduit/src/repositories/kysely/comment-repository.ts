import type { Kysely } from 'kysely'
import type { DB } from '../../schema.ts'
import type {
  ArticleRecord,
  CommentRecord,
  CommentRepository,
  CommentView,
  Reader,
  UserRecord,
} from '../types.ts'

/** Comments, one awaited Kysely query at a time. */
export class KyselyCommentRepository implements CommentRepository {
  readonly #db: Kysely<DB>

  constructor(db: Kysely<DB>) {
    this.#db = db
  }

  async list(slug: string, reader: Reader): Promise<CommentView[] | undefined> {
    const db = this.#db
    const article = await db.selectFrom('article').select('id').where('slug', '=', slug).executeTakeFirst()
    if (!article) return undefined
    const comments = await db
      .selectFrom('comment')
      .selectAll()
      .where('article_id', '=', article.id)
      .orderBy('id')
      .execute()
    if (comments.length === 0) return []
    const authorIds = [...new Set(comments.map((c) => c.author_id))]
    const authors = await db.selectFrom('app_user').selectAll().where('id', 'in', authorIds).execute()
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
    const followedIds = new Set(followed.map((f) => f.followee_id))
    return comments.map((comment) => {
      const author = authorById.get(comment.author_id)
      if (!author) throw new Error(`comment ${comment.id} has no author`)
      return { comment, author: { user: author, following: followedIds.has(author.id) } }
    })
  }

  async create(article: ArticleRecord, author: UserRecord, body: string): Promise<CommentView> {
    const comment = await this.#db
      .insertInto('comment')
      .values({ article_id: article.id, author_id: author.id, body })
      .returningAll()
      .executeTakeFirstOrThrow()
    return { comment, author: { user: author, following: false } }
  }

  async forRemoval(
    slug: string,
    id: number,
  ): Promise<{ article: ArticleRecord | undefined; comment: CommentRecord | undefined }> {
    const article = await this.#db
      .selectFrom('article')
      .selectAll()
      .where('slug', '=', slug)
      .executeTakeFirst()
    const comment = await this.#db.selectFrom('comment').selectAll().where('id', '=', id).executeTakeFirst()
    return { article, comment }
  }

  async remove(comment: CommentRecord): Promise<void> {
    await this.#db.deleteFrom('comment').where('id', '=', comment.id).execute()
  }
}
