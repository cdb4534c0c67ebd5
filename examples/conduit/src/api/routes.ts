import type { Route } from '../http/router.ts'
import * as articles from './articles.ts'
import * as comments from './comments.ts'
import type { Handler } from './context.ts'
import * as profiles from './profiles.ts'
import * as tags from './tags.ts'
import * as users from './users.ts'

/** Every endpoint of the spec, under `/api`; `/articles/feed` before `/articles/:slug`. */
export const ROUTES: readonly Route<Handler>[] = [
  { method: 'POST', pattern: '/api/users/login', handler: users.login },
  { method: 'POST', pattern: '/api/users', handler: users.register },
  { method: 'GET', pattern: '/api/user', handler: users.current },
  { method: 'PUT', pattern: '/api/user', handler: users.update },
  { method: 'GET', pattern: '/api/profiles/:username', handler: profiles.getProfile },
  { method: 'POST', pattern: '/api/profiles/:username/follow', handler: profiles.follow },
  { method: 'DELETE', pattern: '/api/profiles/:username/follow', handler: profiles.unfollow },
  { method: 'GET', pattern: '/api/articles/feed', handler: articles.feed },
  { method: 'GET', pattern: '/api/articles', handler: articles.listArticles },
  { method: 'POST', pattern: '/api/articles', handler: articles.createArticle },
  { method: 'GET', pattern: '/api/articles/:slug', handler: articles.getArticle },
  { method: 'PUT', pattern: '/api/articles/:slug', handler: articles.updateArticle },
  { method: 'DELETE', pattern: '/api/articles/:slug', handler: articles.deleteArticle },
  { method: 'POST', pattern: '/api/articles/:slug/favorite', handler: articles.favorite },
  { method: 'DELETE', pattern: '/api/articles/:slug/favorite', handler: articles.unfavorite },
  { method: 'GET', pattern: '/api/articles/:slug/comments', handler: comments.listComments },
  { method: 'POST', pattern: '/api/articles/:slug/comments', handler: comments.addComment },
  { method: 'DELETE', pattern: '/api/articles/:slug/comments/:id', handler: comments.deleteComment },
  { method: 'GET', pattern: '/api/tags', handler: tags.listTags },
]
