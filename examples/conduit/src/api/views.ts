import type { ArticleView, CommentView, ProfileView, UserRecord } from '../repositories/types.ts'

/**
 * The spec's response bodies, from what the repositories return. Read after the unit of work
 * committed: with pipeflush, new rows' ids and server-filled timestamps are there only then.
 */

/** The spec's `User`. */
export function userJson(user: UserRecord, token: string) {
  return { email: user.email, token, username: user.username, bio: user.bio, image: user.image }
}

/** The spec's `Profile`. */
export function profileJson(profile: ProfileView) {
  const { user, following } = profile
  return { username: user.username, bio: user.bio, image: user.image, following }
}

/** The spec's `Article` (with `body`), or an item of a list (without: the spec's list items have none). */
export function articleJson(view: ArticleView, withBody = true) {
  const { article } = view
  return {
    slug: article.slug,
    title: article.title,
    description: article.description,
    ...(withBody ? { body: article.body } : {}),
    tagList: view.tags,
    createdAt: article.created_at.toISOString(),
    updatedAt: article.updated_at.toISOString(),
    favorited: view.favorited,
    favoritesCount: view.favoritesCount,
    author: profileJson(view.author),
  }
}

/** The spec's `Comment`. */
export function commentJson(view: CommentView) {
  const { comment } = view
  return {
    id: comment.id,
    createdAt: comment.created_at.toISOString(),
    updatedAt: comment.updated_at.toISOString(),
    body: comment.body,
    author: profileJson(view.author),
  }
}
