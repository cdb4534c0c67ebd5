// The Conduit cell's data: the example's tables (its own DDL), seeded with the same rows before each
// library's run. Rows are numbered so that the requests (`conduit-requests.ts`) know what they read.

/** Rows seeded before each library's run (ids 1..n in every table). */
export const CONDUIT_SEED = {
  users: 200,
  /** Article `a` is written by user `1 + (a - 1) % users`: 5 each. */
  articles: 1_000,
  /** Each user follows 12 others: each reader's feed holds 60 seeded articles. */
  followsPerUser: 12,
  tags: 40,
  tagsPerArticle: 3,
  /** Favorites come from users 1..favoritingUsers only, so that the others favorite without a conflict. */
  favoritingUsers: 100,
  favoritesPerArticle: 4,
  commentsPerArticle: 5,
} as const

const S = CONDUIT_SEED
const TABLES = ['comment', 'favorite', 'article_tag', 'tag', 'article', 'follow', 'app_user'] as const

/**
 * The slug of seeded article `a` (1..1000).
 *
 * @example
 * seededSlug(7) // 'seeded-article-7'
 */
export function seededSlug(a: number): string {
  return `seeded-article-${a}`
}

/**
 * The name of seeded tag `t` (1..40).
 *
 * @example
 * seededTag(3) // 'tag-3'
 */
export function seededTag(t: number): string {
  return `tag-${t}`
}

/**
 * Empties the Conduit tables (identities restarted) and seeds them: 200 users, each following 12
 * others; 1,000 articles (5 per user, one every 37 minutes from 2024-01-01) with 3 of 40 tags each,
 * 4 favorites and 5 comments each; then `analyze`.
 */
export const CONDUIT_RESET = `
truncate ${TABLES.join(', ')} restart identity cascade;
insert into app_user (id, username, email, password_hash, bio, image)
  select u, 'user' || u, 'user' || u || '@example.com', 'scrypt$bench$bench', 'Bio of user ' || u,
    case when u % 2 = 0 then 'https://example.com/u' || u || '.png' else '' end
  from generate_series(1, ${S.users}) u;
insert into follow (follower_id, followee_id)
  select u, 1 + (u - 1 + 17 * k) % ${S.users} from generate_series(1, ${S.users}) u, generate_series(1, ${S.followsPerUser}) k;
insert into tag (id, name) select t, 'tag-' || t from generate_series(1, ${S.tags}) t;
insert into article (id, slug, title, description, body, author_id, created_at, updated_at)
  select a, 'seeded-article-' || a, 'Seeded article ' || a, 'What article ' || a || ' is about',
    repeat('The body of article ' || a || '. ', 20), 1 + (a - 1) % ${S.users},
    timestamptz '2024-01-01 00:00:00+00' + a * interval '37 minutes',
    timestamptz '2024-01-01 00:00:00+00' + a * interval '37 minutes' + interval '5 minutes'
  from generate_series(1, ${S.articles}) a;
insert into article_tag (article_id, tag_id)
  select a, 1 + (a + 13 * k) % ${S.tags} from generate_series(1, ${S.articles}) a, generate_series(0, ${S.tagsPerArticle - 1}) k;
insert into favorite (user_id, article_id)
  select 1 + (a + 29 * k) % ${S.favoritingUsers}, a from generate_series(1, ${S.articles}) a, generate_series(0, ${S.favoritesPerArticle - 1}) k;
insert into comment (id, article_id, author_id, body, created_at, updated_at)
  select (a - 1) * ${S.commentsPerArticle} + k + 1, a, 1 + (3 * a + 41 * k) % ${S.users}, 'Comment ' || k || ' on article ' || a,
    timestamptz '2024-01-01 00:00:00+00' + a * interval '37 minutes' + (k + 1) * interval '1 hour',
    timestamptz '2024-01-01 00:00:00+00' + a * interval '37 minutes' + (k + 1) * interval '1 hour'
  from generate_series(1, ${S.articles}) a, generate_series(0, ${S.commentsPerArticle - 1}) k;
select setval(pg_get_serial_sequence('app_user', 'id'), ${S.users});
select setval(pg_get_serial_sequence('tag', 'id'), ${S.tags});
select setval(pg_get_serial_sequence('article', 'id'), ${S.articles});
select setval(pg_get_serial_sequence('comment', 'id'), ${S.articles * S.commentsPerArticle});
analyze ${TABLES.join(', ')};
`
