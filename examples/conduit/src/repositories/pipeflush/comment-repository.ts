import type {
  ArticleRecord,
  CommentRecord,
  CommentRepository,
  CommentView,
  Reader,
  UserRecord,
} from '../types.ts'
import { ownEntity } from './own-entity.ts'
import { followedAmong } from './reader-flags.ts'
import type { Article, Comment, ConduitEm } from './types.ts'

/** Comments, on the request's unit of work. */
export class PipeflushCommentRepository implements CommentRepository {
  readonly #em: ConduitEm

  constructor(em: ConduitEm) {
    this.#em = em
  }

  /**
   * One batch: the article with its comments and their authors (a graph load), and the reader's
   * follow rows of those authors (selected through the slug).
   */
  async list(slug: string, reader: Reader): Promise<CommentView[] | undefined> {
    const em = this.#em
    const db = em.db
    const authorIds = db
      .selectFrom('comment')
      .select('author_id')
      .where('article_id', 'in', db.selectFrom('article').select('id').where('slug', '=', slug))
    const [article, followed] = await Promise.all([
      em.findOne('article', { slug }, { with: { comments: { author: true } } }),
      followedAmong(em, reader, authorIds),
    ])
    if (!article) return undefined
    return em
      .related(article, 'comments')
      .sort((a, b) => a.id - b.id)
      .map((comment) => {
        const author = em.related(comment, 'author')
        if (!author) throw new Error(`comment ${comment.id} has no author`)
        return { comment, author: { user: author, following: followed.has(author.id) } }
      })
  }

  /** Inserted by the flush: its id and timestamps are there once it committed. */
  async create(article: ArticleRecord, author: UserRecord, body: string): Promise<CommentView> {
    const comment = this.#em.create('comment', { article_id: article.id, author_id: author.id, body })
    return { comment, author: { user: author, following: false } }
  }

  /** One batch: the article by slug and the comment by id. */
  async forRemoval(
    slug: string,
    id: number,
  ): Promise<{ article: Article | undefined; comment: Comment | undefined }> {
    const [article, comment] = await Promise.all([
      this.#em.findOne('article', { slug }),
      this.#em.findOne('comment', { id }),
    ])
    return { article, comment }
  }

  async remove(comment: CommentRecord): Promise<void> {
    this.#em.remove(ownEntity(this.#em, 'comment', comment))
  }
}
