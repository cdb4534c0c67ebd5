import { forbidden, notFound } from '../http/api-error.ts'
import type { ArticlePage, ArticleView } from '../repositories/types.ts'
import type { Reply, RequestContext } from './context.ts'
import { articleUpdate, isStorable, newArticle, pageOf } from './inputs.ts'
import { currentUser, signedIn } from './signed-in.ts'
import { articleJson } from './views.ts'

function optionalParam(query: URLSearchParams, name: string): string | undefined {
  return query.get(name) ?? undefined
}

/** The spec's `SingleArticleResponse`. */
function single(view: ArticleView): { article: ReturnType<typeof articleJson> } {
  return { article: articleJson(view) }
}

/** The spec's `MultipleArticlesResponse` (its items without `body`). */
function multiple(page: ArticlePage) {
  return { articles: page.articles.map((a) => articleJson(a, false)), articlesCount: page.articlesCount }
}

/** `GET /articles?tag=&author=&favorited=&limit=&offset=` (auth optional): newest first. */
export async function listArticles(ctx: RequestContext): Promise<Reply> {
  const page = pageOf(ctx.query)
  const filter = {
    tag: optionalParam(ctx.query, 'tag'),
    author: optionalParam(ctx.query, 'author'),
    favoritedBy: optionalParam(ctx.query, 'favorited'),
  }
  // A filter the database could not hold matches no article.
  const values = [filter.tag, filter.author, filter.favoritedBy]
  if (values.some((v) => v !== undefined && !isStorable(v)))
    return { status: 200, body: { articles: [], articlesCount: 0 } }
  const result = await ctx.run(({ articles }) => articles.list(filter, page, ctx.auth?.userId))
  return { status: 200, body: multiple(result) }
}

/** `GET /articles/feed?limit=&offset=`: the followed users' articles, newest first. */
export async function feed(ctx: RequestContext): Promise<Reply> {
  const auth = signedIn(ctx)
  const page = pageOf(ctx.query)
  const result = await ctx.run(({ articles }) => articles.list({ feedOf: auth.userId }, page, auth.userId))
  return { status: 200, body: multiple(result) }
}

/** `GET /articles/:slug` (auth optional). */
export async function getArticle(ctx: RequestContext): Promise<Reply> {
  const slug = ctx.params['slug']!
  const view = await ctx.run(({ articles }) => articles.view(slug, ctx.auth?.userId))
  if (!view) throw notFound('article')
  return { status: 200, body: single(view) }
}

/** `POST /articles`: the author read, the article with its tags written by one flush. */
export async function createArticle(ctx: RequestContext): Promise<Reply> {
  const auth = signedIn(ctx)
  const input = newArticle(ctx.body)
  const view = await ctx.run(async ({ users, articles }) =>
    articles.create(await currentUser(users, auth), input),
  )
  return { status: 201, body: single(view) }
}

/** `PUT /articles/:slug`: read, check the author (403), change, flush. */
export async function updateArticle(ctx: RequestContext): Promise<Reply> {
  const auth = signedIn(ctx)
  const slug = ctx.params['slug']!
  const changes = articleUpdate(ctx.body)
  const view = await ctx.run(async ({ articles }) => {
    const found = await articles.view(slug, auth.userId)
    if (!found) throw notFound('article')
    if (found.article.author_id !== auth.userId) throw forbidden('article')
    return articles.update(found, changes)
  })
  return { status: 200, body: single(view) }
}

/** `DELETE /articles/:slug`: read it with what references it, check the author (403), delete all, flush. */
export async function deleteArticle(ctx: RequestContext): Promise<Reply> {
  const auth = signedIn(ctx)
  const slug = ctx.params['slug']!
  await ctx.run(async ({ articles }) => {
    const found = await articles.forRemoval(slug)
    if (!found) throw notFound('article')
    if (found.author_id !== auth.userId) throw forbidden('article')
    await articles.remove(found)
  })
  return { status: 204 }
}

/** `POST /articles/:slug/favorite`: read, favorite, flush. */
export async function favorite(ctx: RequestContext): Promise<Reply> {
  const auth = signedIn(ctx)
  const slug = ctx.params['slug']!
  const view = await ctx.run(async ({ articles }) => {
    const found = await articles.view(slug, auth.userId)
    if (!found) throw notFound('article')
    return articles.favorite(auth.userId, found)
  })
  return { status: 200, body: single(view) }
}

/** `DELETE /articles/:slug/favorite`: read, unfavorite, flush. */
export async function unfavorite(ctx: RequestContext): Promise<Reply> {
  const auth = signedIn(ctx)
  const slug = ctx.params['slug']!
  const view = await ctx.run(async ({ articles }) => {
    const found = await articles.view(slug, auth.userId)
    if (!found) throw notFound('article')
    return articles.unfavorite(auth.userId, found)
  })
  return { status: 200, body: single(view) }
}
