import { sql } from 'kysely'
import { slugOf } from '../../domain/slug.ts'
import { matchingArticles } from '../article-filter.ts'
import type {
  ArticleChanges,
  ArticleFilter,
  ArticlePage,
  ArticleRecord,
  ArticleRepository,
  ArticleView,
  NewArticle,
  Page,
  Reader,
  UserRecord,
} from '../types.ts'
import { ownEntity } from './own-entity.ts'
import { articleTree, favorited, follows } from './reader-graph.ts'
import type { PipeflushTagRepository } from './tag-repository.ts'
import type { Article, ConduitEm } from './types.ts'

/** Articles with their tag links and favorites, on the request's unit of work. */
export class PipeflushArticleRepository implements ArticleRepository {
  readonly #em: ConduitEm
  readonly #tags: PipeflushTagRepository

  constructor(em: ConduitEm, tags: PipeflushTagRepository) {
    this.#em = em
    this.#tags = tags
  }

  /**
   * One graph load, one round trip: the article with its author (and the reader's follow row of
   * them), its tags, the reader's favorite row and its favorites counted.
   */
  async view(slug: string, reader: Reader): Promise<ArticleView | undefined> {
    const article = await this.#em.findOne('article', { slug }, { with: articleTree(reader) })
    return article && this.#viewOf(article, reader)
  }

  /**
   * One round trip: the page's articles by a Kysely query (filter, newest first, limit, offset) with
   * their graph (see {@link view}), and how many articles match in all, in the same message.
   */
  async list(filter: ArticleFilter, page: Page, reader: Reader): Promise<ArticlePage> {
    const em = this.#em
    const [articles, [total]] = await Promise.all([
      em.load(
        matchingArticles(em.db, filter)
          .selectAll()
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(page.limit)
          .offset(page.offset),
        { with: articleTree(reader) },
      ),
      em.select(matchingArticles(em.db, filter).select(sql<number>`count(*)::int`.as('n'))),
    ])
    return {
      articles: articles.map((a) => this.#viewOf(a, reader)),
      articlesCount: total?.n ?? 0,
    }
  }

  bySlug(slug: string): Promise<Article | undefined> {
    return this.#em.findOne('article', { slug })
  }

  /**
   * Inserted by the flush with its tag links; the tags are got or created by the same flush (upserts
   * by name), without a read.
   */
  async create(author: UserRecord, input: NewArticle): Promise<ArticleView> {
    const em = this.#em
    const tags = this.#tags.getOrCreate(input.tagList)
    const article = em.create('article', {
      slug: slugOf(input.title),
      title: input.title,
      description: input.description,
      body: input.body,
      author_id: author.id,
    })
    for (const tag of tags.values()) em.create('article_tag', { article_id: article, tag_id: tag })
    return {
      article,
      author: { user: author, following: false },
      tags: [...tags.keys()].sort(),
      favorited: false,
      favoritesCount: 0,
    }
  }

  /** Assigned on the tracked article: the flush writes the changed columns. */
  async update(view: ArticleView, changes: ArticleChanges): Promise<ArticleView> {
    const article = ownEntity(this.#em, 'article', view.article)
    const { title, description, body } = changes
    if (title !== undefined && title !== article.title) {
      article.title = title
      article.slug = slugOf(title)
    }
    if (description !== undefined) article.description = description
    if (body !== undefined) article.body = body
    article.updated_at = new Date()
    return view
  }

  /**
   * One graph load, locked (`for update`, in the transaction the flush commits): the article with
   * every row that references it. A favorite or comment another request adds meanwhile waits for the
   * article's lock (its foreign key check), then finds the article gone: the delete never meets a
   * reference it did not read. Still two round trips: the locking read, the flush with its COMMIT.
   */
  forRemoval(slug: string): Promise<Article | undefined> {
    return this.#em.findOne(
      'article',
      { slug },
      { with: { comments: true, favorites: true, article_tags: true }, lock: 'update' },
    )
  }

  /** Removed with its comments, favorites and tag links (read by `forRemoval`); the flush orders the deletes. */
  async remove(record: ArticleRecord): Promise<void> {
    const em = this.#em
    const article = ownEntity(em, 'article', record)
    for (const comment of em.related(article, 'comments')) em.remove(comment)
    for (const favorite of em.related(article, 'favorites')) em.remove(favorite)
    for (const link of em.related(article, 'article_tags')) em.remove(link)
    em.remove(article)
  }

  /** An upsert that changes nothing when the favorite exists: two requests at once make one row. */
  async favorite(reader: number, view: ArticleView): Promise<ArticleView> {
    if (view.favorited) return view
    this.#em.upsert(
      'favorite',
      { user_id: reader, article_id: view.article.id },
      { conflict: ['user_id', 'article_id'], update: [] },
    )
    return { ...view, favorited: true, favoritesCount: view.favoritesCount + 1 }
  }

  /** The favorite row was read with the view: a load by key from the identity map, no query. */
  async unfavorite(reader: number, view: ArticleView): Promise<ArticleView> {
    if (!view.favorited) return view
    this.#em.remove(await this.#em.load('favorite', { user_id: reader, article_id: view.article.id }))
    return { ...view, favorited: false, favoritesCount: view.favoritesCount - 1 }
  }

  /** `article` (read with `articleTree`) as the reader sees it. */
  #viewOf(article: Article, reader: Reader): ArticleView {
    const em = this.#em
    const author = em.related(article, 'author')
    if (!author) throw new Error(`article ${article.id} has no author`)
    return {
      article,
      author: { user: author, following: follows(em, author, reader) },
      tags: em
        .related(article, 'tags')
        .map((t) => t.name)
        .sort(),
      favorited: favorited(em, article, reader),
      favoritesCount: em.countOf(article, 'favorites'),
    }
  }
}
