import type { Selectable } from 'kysely'
import type { DB } from '../schema.ts'

/**
 * What the handlers see of the database: one repository per aggregate, implemented twice, on
 * pipeflush (`pipeflush/`: reads batched per tick, writes collected and flushed once per request)
 * and on plain Kysely (`kysely/`: each query awaited, as a Kysely application writes them). Records
 * are rows as the database holds them; with pipeflush they are tracked entities, whose ids and
 * server-filled values (`created_at`) are there once the request's unit of work has flushed.
 */

export type UserRecord = Selectable<DB['app_user']>
export type ArticleRecord = Selectable<DB['article']>
export type CommentRecord = Selectable<DB['comment']>

/** Who reads: the signed-in user's id, or undefined for an anonymous request. */
export type Reader = number | undefined

/** A user as another user sees them: `following` is whether the reader follows them. */
export interface ProfileView {
  readonly user: UserRecord
  readonly following: boolean
}

/** An article as a reader sees it. */
export interface ArticleView {
  readonly article: ArticleRecord
  readonly author: ProfileView
  /** Tag names, sorted. */
  readonly tags: readonly string[]
  /** Whether the reader favorited it. */
  readonly favorited: boolean
  readonly favoritesCount: number
}

/** A page of articles, newest first, and how many articles match in all. */
export interface ArticlePage {
  readonly articles: readonly ArticleView[]
  readonly articlesCount: number
}

/** A comment as a reader sees it. */
export interface CommentView {
  readonly comment: CommentRecord
  readonly author: ProfileView
}

/** Which articles a list holds (conditions joined with AND). */
export interface ArticleFilter {
  /** Tagged with this tag name. */
  readonly tag?: string | undefined
  /** Written by the user of this username. */
  readonly author?: string | undefined
  /** Favorited by the user of this username. */
  readonly favoritedBy?: string | undefined
  /** Written by the users this user (an id) follows: the feed. */
  readonly feedOf?: number | undefined
}

/** A window of a list: at most `limit` items after the first `offset`. */
export interface Page {
  readonly limit: number
  readonly offset: number
}

/** A new user; the password is already hashed. */
export interface NewUser {
  readonly username: string
  readonly email: string
  readonly passwordHash: string
}

/** What `PUT /user` may change (a new password already hashed). */
export interface UserChanges {
  readonly username?: string | undefined
  readonly email?: string | undefined
  readonly passwordHash?: string | undefined
  readonly bio?: string | undefined
  readonly image?: string | undefined
}

/** A new article; its slug is made from the title. */
export interface NewArticle {
  readonly title: string
  readonly description: string
  readonly body: string
  /** Tag names, got or created. */
  readonly tagList: readonly string[]
}

/** What `PUT /articles/:slug` may change; a new title gives a new slug. */
export interface ArticleChanges {
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly body?: string | undefined
}

/** Users and their follows. */
export interface UserRepository {
  /** The user with this id, or undefined. */
  byId(id: number): Promise<UserRecord | undefined>
  /** The user with this email, or undefined. */
  byEmail(email: string): Promise<UserRecord | undefined>
  /** A new user (a taken username or email fails the request with `UniqueViolation`). */
  register(user: NewUser): Promise<UserRecord>
  /** `user` (read by this unit of work) with `changes` applied. */
  update(user: UserRecord, changes: UserChanges): Promise<UserRecord>
  /** The user of this username as `reader` sees them, or undefined. */
  profile(username: string, reader: Reader): Promise<ProfileView | undefined>
  /** `reader` follows `profile`'s user (already following: nothing changes). */
  follow(reader: number, profile: ProfileView): Promise<ProfileView>
  /** `reader` no longer follows `profile`'s user. */
  unfollow(reader: number, profile: ProfileView): Promise<ProfileView>
}

/** Articles with their tag links and favorites. */
export interface ArticleRepository {
  /** The article of this slug as `reader` sees it, or undefined. */
  view(slug: string, reader: Reader): Promise<ArticleView | undefined>
  /** The articles matching `filter`, newest first, as `reader` sees them. */
  list(filter: ArticleFilter, page: Page, reader: Reader): Promise<ArticlePage>
  /** The article of this slug, or undefined. */
  bySlug(slug: string): Promise<ArticleRecord | undefined>
  /** A new article by `author` (read by this unit of work), its tags got or created. */
  create(author: UserRecord, article: NewArticle): Promise<ArticleView>
  /** `view`'s article with `changes` applied. */
  update(view: ArticleView, changes: ArticleChanges): Promise<ArticleView>
  /** The article of this slug, read to be removed with what references it, or undefined. */
  forRemoval(slug: string): Promise<ArticleRecord | undefined>
  /** Deletes `article` (from `forRemoval`) with its comments, favorites and tag links. */
  remove(article: ArticleRecord): Promise<void>
  /** `reader` favorites `view`'s article (already a favorite: nothing changes). */
  favorite(reader: number, view: ArticleView): Promise<ArticleView>
  /** `reader` no longer favorites `view`'s article. */
  unfavorite(reader: number, view: ArticleView): Promise<ArticleView>
}

/** Comments on articles. */
export interface CommentRepository {
  /** The comments of the article of this slug, oldest first, or undefined when there is no such article. */
  list(slug: string, reader: Reader): Promise<CommentView[] | undefined>
  /** A new comment by `author` (read by this unit of work) on `article`. */
  create(article: ArticleRecord, author: UserRecord, body: string): Promise<CommentView>
  /** The article of this slug and the comment of this id (either may be missing), read to remove the comment. */
  forRemoval(
    slug: string,
    id: number,
  ): Promise<{ readonly article: ArticleRecord | undefined; readonly comment: CommentRecord | undefined }>
  /** Deletes `comment` (from `forRemoval`). */
  remove(comment: CommentRecord): Promise<void>
}

/** Tags. */
export interface TagRepository {
  /** The names of the tags some article has, sorted. */
  names(): Promise<string[]>
}

/** The repositories of one request's unit of work. */
export interface Repositories {
  readonly users: UserRepository
  readonly articles: ArticleRepository
  readonly comments: CommentRepository
  readonly tags: TagRepository
}
