import type { Kysely } from 'kysely'
import { slugOf } from '../../domain/slug.ts'
import type { DB } from '../../schema.ts'
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
import { articleViews } from './article-views.ts'

/**
 * Articles with their tag links and favorites, one awaited Kysely query at a time; a write of several
 * statements in a Kysely transaction (BEGIN, each statement, COMMIT).
 */
export class KyselyArticleRepository implements ArticleRepository {
  readonly #db: Kysely<DB>

  constructor(db: Kysely<DB>) {
    this.#db = db
  }

  async view(slug: string, reader: Reader): Promise<ArticleView | undefined> {
    const article = await this.bySlug(slug)
    if (!article) return undefined
    const [view] = await articleViews(this.#db, [article], reader)
    return view
  }

  async list(filter: ArticleFilter, page: Page, reader: Reader): Promise<ArticlePage> {
    const db = this.#db
    const articles = await matchingArticles(db, filter)
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute()
    const { n } = await matchingArticles(db, filter)
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .executeTakeFirstOrThrow()
    return { articles: await articleViews(db, articles, reader), articlesCount: Number(n) }
  }

  bySlug(slug: string): Promise<ArticleRecord | undefined> {
    return this.#db.selectFrom('article').selectAll().where('slug', '=', slug).executeTakeFirst()
  }

  /** The article, its tags got or created (in name order, so that two requests lock them alike) and its tag links. */
  create(author: UserRecord, input: NewArticle): Promise<ArticleView> {
    const names = [...new Set(input.tagList)].sort()
    return this.#db.transaction().execute(async (trx) => {
      const article = await trx
        .insertInto('article')
        .values({
          slug: slugOf(input.title),
          title: input.title,
          description: input.description,
          body: input.body,
          author_id: author.id,
        })
        .returningAll()
        .executeTakeFirstOrThrow()
      if (names.length > 0) {
        const tags = await trx
          .insertInto('tag')
          .values(names.map((name) => ({ name })))
          .onConflict((oc) => oc.column('name').doUpdateSet((eb) => ({ name: eb.ref('excluded.name') })))
          .returning('id')
          .execute()
        await trx
          .insertInto('article_tag')
          .values(tags.map((t) => ({ article_id: article.id, tag_id: t.id })))
          .execute()
      }
      return {
        article,
        author: { user: author, following: false },
        tags: names,
        favorited: false,
        favoritesCount: 0,
      }
    })
  }

  async update(view: ArticleView, changes: ArticleChanges): Promise<ArticleView> {
    const { title, description, body } = changes
    const retitled = title !== undefined && title !== view.article.title
    const article = await this.#db
      .updateTable('article')
      .set({
        ...(retitled ? { title, slug: slugOf(title) } : {}),
        ...(description === undefined ? {} : { description }),
        ...(body === undefined ? {} : { body }),
        updated_at: new Date(),
      })
      .where('id', '=', view.article.id)
      .returningAll()
      .executeTakeFirstOrThrow()
    return { ...view, article }
  }

  forRemoval(slug: string): Promise<ArticleRecord | undefined> {
    return this.bySlug(slug)
  }

  /**
   * The article locked first, so that a favorite or comment another request adds meanwhile waits for
   * the lock (its foreign key check) and then finds the article gone, rather than failing this delete.
   */
  async remove(article: ArticleRecord): Promise<void> {
    await this.#db.transaction().execute(async (trx) => {
      await trx.selectFrom('article').select('id').where('id', '=', article.id).forUpdate().execute()
      await trx.deleteFrom('comment').where('article_id', '=', article.id).execute()
      await trx.deleteFrom('favorite').where('article_id', '=', article.id).execute()
      await trx.deleteFrom('article_tag').where('article_id', '=', article.id).execute()
      await trx.deleteFrom('article').where('id', '=', article.id).execute()
    })
  }

  async favorite(reader: number, view: ArticleView): Promise<ArticleView> {
    if (view.favorited) return view
    await this.#db
      .insertInto('favorite')
      .values({ user_id: reader, article_id: view.article.id })
      .onConflict((oc) => oc.doNothing())
      .execute()
    return { ...view, favorited: true, favoritesCount: view.favoritesCount + 1 }
  }

  async unfavorite(reader: number, view: ArticleView): Promise<ArticleView> {
    if (!view.favorited) return view
    await this.#db
      .deleteFrom('favorite')
      .where('user_id', '=', reader)
      .where('article_id', '=', view.article.id)
      .execute()
    return { ...view, favorited: false, favoritesCount: view.favoritesCount - 1 }
  }
}
