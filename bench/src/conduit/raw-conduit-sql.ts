// The hand-written SQL of the Conduit requests (node-postgres, named statements): each view in one
// statement, the reader's flags, the favorites count and the tags as subqueries of each article row.
import type pg from 'pg'
import type { ArticleJson, CommentJson } from './conduit-requests.ts'

type Row = Record<string, unknown>

/** An article row as the reader sees it (`$reader` the reader's id), for `from article a join app_user u`. */
const articleColumns = (
  reader: string,
  body: boolean,
) => `a.slug, a.title, a.description,${body ? ' a.body,' : ''}
  a.created_at, a.updated_at, u.username, u.bio, u.image,
  exists (select 1 from follow f where f.follower_id = ${reader} and f.followee_id = a.author_id) as following,
  exists (select 1 from favorite v where v.user_id = ${reader} and v.article_id = a.id) as favorited,
  (select count(*)::int from favorite v where v.article_id = a.id) as favorites_count,
  array(select t.name from article_tag x join tag t on t.id = x.tag_id where x.article_id = a.id order by t.name) as tag_list`

/** Feed: the followed authors' articles, newest first ($1 reader, $2 limit). */
export const FEED_PAGE: Omit<pg.QueryConfig, 'values'> = {
  name: 'conduit_feed_page',
  text: `select ${articleColumns('$1', false)}
from article a join app_user u on u.id = a.author_id
where a.author_id in (select followee_id from follow where follower_id = $1)
order by a.created_at desc, a.id desc limit $2`,
}

/** Feed: how many articles it holds in all ($1 reader). */
export const FEED_COUNT: Omit<pg.QueryConfig, 'values'> = {
  name: 'conduit_feed_count',
  text: 'select count(*)::int as n from article where author_id in (select followee_id from follow where follower_id = $1)',
}

/** An article by slug as the reader sees it ($1 slug, $2 reader). */
export const ARTICLE_VIEW: Omit<pg.QueryConfig, 'values'> = {
  name: 'conduit_article_view',
  text: `select ${articleColumns('$2', true)}
from article a join app_user u on u.id = a.author_id where a.slug = $1`,
}

/** An article's comments with their authors as the reader sees them, newest first ($1 slug, $2 reader). */
export const ARTICLE_COMMENTS: Omit<pg.QueryConfig, 'values'> = {
  name: 'conduit_article_comments',
  text: `select c.id, c.body, c.created_at, c.updated_at, u.username, u.bio, u.image,
  exists (select 1 from follow f where f.follower_id = $2 and f.followee_id = c.author_id) as following
from comment c join app_user u on u.id = c.author_id
where c.article_id = (select id from article where slug = $1)
order by c.id desc`,
}

/** A user by id ($1). */
export const USER_BY_ID: Omit<pg.QueryConfig, 'values'> = {
  name: 'conduit_user_by_id',
  text: 'select id, username, bio, image from app_user where id = $1',
}

/** Tags got or created: the missing names inserted ($1 names). */
export const TAGS_GET_OR_CREATE: Omit<pg.QueryConfig, 'values'> = {
  name: 'conduit_tags_upsert',
  text: 'insert into tag (name) select unnest($1::text[]) on conflict (name) do nothing',
}

/** A new article ($1 slug, $2 title, $3 description, $4 body, $5 author). */
export const ARTICLE_INSERT: Omit<pg.QueryConfig, 'values'> = {
  name: 'conduit_article_insert',
  text: `insert into article (slug, title, description, body, author_id) values ($1, $2, $3, $4, $5)
returning created_at, updated_at`,
}

/** The new article's tag links, by its slug and the tags' names ($1 slug, $2 names). */
export const ARTICLE_TAGS_INSERT: Omit<pg.QueryConfig, 'values'> = {
  name: 'conduit_article_tags_insert',
  text: `insert into article_tag (article_id, tag_id)
select a.id, t.id from article a, tag t where a.slug = $1 and t.name = any($2::text[])`,
}

/** A favorite; nothing when it exists ($1 user, $2 slug). */
export const FAVORITE_INSERT: Omit<pg.QueryConfig, 'values'> = {
  name: 'conduit_favorite_insert',
  text: `insert into favorite (user_id, article_id) select $1, id from article where slug = $2
on conflict do nothing`,
}

/**
 * `statement` with its parameters.
 *
 * @example
 * await client.query(withValues(USER_BY_ID, [7]))
 */
export function withValues(statement: Omit<pg.QueryConfig, 'values'>, values: unknown[]): pg.QueryConfig {
  return { ...statement, values }
}

/**
 * The spec's `Article` from a row of {@link FEED_PAGE} or {@link ARTICLE_VIEW} (with `body` when the row has one).
 *
 * @example
 * articleOf(rows[0]).favoritesCount // 4
 */
export function articleOf(row: Row): ArticleJson {
  return {
    slug: row['slug'] as string,
    title: row['title'] as string,
    description: row['description'] as string,
    ...('body' in row ? { body: row['body'] as string } : {}),
    tagList: row['tag_list'] as string[],
    createdAt: (row['created_at'] as Date).toISOString(),
    updatedAt: (row['updated_at'] as Date).toISOString(),
    favorited: row['favorited'] as boolean,
    favoritesCount: row['favorites_count'] as number,
    author: profileOf(row),
  }
}

/**
 * The spec's `Comment` from a row of {@link ARTICLE_COMMENTS}.
 *
 * @example
 * (await client.query(withValues(ARTICLE_COMMENTS, [slug, reader]))).rows.map(commentOf)
 */
export function commentOf(row: Row): CommentJson {
  return {
    id: row['id'] as number,
    createdAt: (row['created_at'] as Date).toISOString(),
    updatedAt: (row['updated_at'] as Date).toISOString(),
    body: row['body'] as string,
    author: profileOf(row),
  }
}

/**
 * The spec's `Profile` from a row's `username`, `bio`, `image` and `following` (false when the row has none).
 *
 * @example
 * profileOf({ username: 'user7', bio: '', image: '' }) // { username: 'user7', bio: '', image: '', following: false }
 */
export function profileOf(row: Row): ArticleJson['author'] {
  return {
    username: row['username'] as string,
    bio: row['bio'] as string,
    image: row['image'] as string,
    following: (row['following'] as boolean | undefined) ?? false,
  }
}
