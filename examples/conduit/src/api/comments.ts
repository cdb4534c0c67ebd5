import { forbidden, notFound } from '../http/api-error.ts'
import type { Reply, RequestContext } from './context.ts'
import { commentId, newComment } from './inputs.ts'
import { currentUser, signedIn } from './signed-in.ts'
import { commentJson } from './views.ts'

/** `GET /articles/:slug/comments` (auth optional): oldest first. */
export async function listComments(ctx: RequestContext): Promise<Reply> {
  const slug = ctx.params['slug']!
  const views = await ctx.run(({ comments }) => comments.list(slug, ctx.auth?.userId))
  if (!views) throw notFound('article')
  return { status: 200, body: { comments: views.map(commentJson) } }
}

/** `POST /articles/:slug/comments`: the article and the author read in one batch, the comment flushed. */
export async function addComment(ctx: RequestContext): Promise<Reply> {
  const auth = signedIn(ctx)
  const slug = ctx.params['slug']!
  const input = newComment(ctx.body)
  const view = await ctx.run(async ({ users, articles, comments }) => {
    const [article, author] = await Promise.all([articles.bySlug(slug), currentUser(users, auth)])
    if (!article) throw notFound('article')
    return comments.create(article, author, input.body)
  })
  return { status: 200, body: { comment: commentJson(view) } }
}

/** `DELETE /articles/:slug/comments/:id`: read both, check (404, 403), delete, flush. */
export async function deleteComment(ctx: RequestContext): Promise<Reply> {
  const auth = signedIn(ctx)
  const slug = ctx.params['slug']!
  const id = commentId(ctx.params['id'])
  await ctx.run(async ({ comments }) => {
    if (id === undefined) throw notFound('comment')
    const { article, comment } = await comments.forRemoval(slug, id)
    if (!article) throw notFound('article')
    if (!comment || comment.article_id !== article.id) throw notFound('comment')
    if (comment.author_id !== auth.userId) throw forbidden('comment')
    await comments.remove(comment)
  })
  return { status: 204 }
}
