import type {
  ArticleRecord,
  CommentRecord,
  CommentRepository,
  CommentView,
  Reader,
  UserRecord,
} from '../types.ts'
import { ownEntity } from './own-entity.ts'
import { follows, profileTree } from './reader-graph.ts'
import type { Article, Comment, ConduitEm } from './types.ts'

/** Comments, on the request's unit of work. */
export class PipeflushCommentRepository implements CommentRepository {
  readonly #em: ConduitEm

  constructor(em: ConduitEm) {
    this.#em = em
  }

  /**
   * One graph load, one round trip: the article with its comments in the order written, their
   * authors, and the reader's follow rows of those authors.
   */
  async list(slug: string, reader: Reader): Promise<CommentView[] | undefined> {
    const em = this.#em
    const article = await em.findOne(
      'article',
      { slug },
      { with: { comments: { $orderBy: { id: 'asc' }, author: profileTree(reader) } } },
    )
    if (!article) return undefined
    return em.related(article, 'comments').map((comment) => {
      const author = em.related(comment, 'author')
      if (!author) throw new Error(`comment ${comment.id} has no author`)
      return { comment, author: { user: author, following: follows(em, author, reader) } }
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
