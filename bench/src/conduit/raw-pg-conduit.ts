import { slugOf } from '@pipeflush/example-conduit/domain/slug'
import type pg from 'pg'
import { openPgPool } from '../series/pg-client.ts'
import type { ConduitClient, ConduitSeries } from './conduit-requests.ts'
import { FEED_LIMIT } from './conduit-requests.ts'
import {
  ARTICLE_COMMENTS,
  ARTICLE_INSERT,
  ARTICLE_TAGS_INSERT,
  ARTICLE_VIEW,
  articleOf,
  commentOf,
  FAVORITE_INSERT,
  FEED_COUNT,
  FEED_PAGE,
  profileOf,
  TAGS_GET_OR_CREATE,
  USER_BY_ID,
  withValues,
} from './raw-conduit-sql.ts'

type Row = Record<string, unknown>

/** Runs `work` on a client checked out of `pool` (warm: no round trip), releasing it after. */
async function onClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  try {
    return await work(client)
  } finally {
    client.release()
  }
}

/** BEGIN, `statements` and COMMIT in one `Promise.all` (one write with `pipeline: true`); their results. */
async function pipelinedTransaction(
  client: pg.PoolClient,
  statements: readonly pg.QueryConfig[],
): Promise<pg.QueryResult[]> {
  const results = await Promise.all([
    client.query('begin'),
    ...statements.map((s) => client.query(s)),
    client.query('commit'),
  ])
  const commit = results[results.length - 1]
  if (commit?.command !== 'COMMIT') throw new Error(`pg-pipeline: COMMIT answered ${commit?.command}`)
  return results.slice(1, -1)
}

const one = (result: pg.QueryResult | undefined, what: string): Row => {
  const row = result?.rows[0] as Row | undefined
  if (!row) throw new Error(`pg-pipeline conduit: no ${what}`)
  return row
}

/**
 * The Conduit requests hand-written on node-postgres 8.23 with `pipeline: true`, the floor a careful
 * implementation reaches: on one checked-out client, a request's reads in one `Promise.all` (each
 * view one named statement: the reader's flags, the favorites count and the tags as subqueries of
 * each row), and a write as BEGIN, its statements and COMMIT in one `Promise.all` (tags got or created
 * by an upsert, the links by the new article's slug and the tags' names).
 */
export const rawPgConduit: ConduitSeries = {
  name: 'pg-pipeline',
  driver: 'pg',
  id: 'pg-pipeline',
  description:
    'node-postgres pg.Pool with pipeline: true, hand-written SQL: the reads of a request in one Promise.all, a write as BEGIN + statements + COMMIT in one Promise.all',
  unavailableReason: async () => undefined,
  async open(target, max): Promise<ConduitClient> {
    const { pool, counter } = await openPgPool(target.url, max)
    const view = (client: pg.PoolClient, slug: string, reader: number) =>
      client.query(withValues(ARTICLE_VIEW, [slug, reader]))
    return {
      counter,
      feed: ({ reader }) =>
        onClient(pool, async (client) => {
          const [page, count] = await Promise.all([
            client.query(withValues(FEED_PAGE, [reader, FEED_LIMIT])),
            client.query(withValues(FEED_COUNT, [reader])),
          ])
          const articlesCount = one(count, 'count')['n'] as number
          return { answer: { articles: (page.rows as Row[]).map(articleOf), articlesCount } }
        }),
      article: ({ reader, slug }) =>
        onClient(pool, async (client) => {
          const [article, comments] = await Promise.all([
            view(client, slug, reader),
            client.query(withValues(ARTICLE_COMMENTS, [slug, reader])),
          ])
          const answer = {
            article: articleOf(one(article, `article ${slug}`)),
            comments: (comments.rows as Row[]).map(commentOf),
          }
          return { answer }
        }),
      create: ({ author, article }) =>
        onClient(pool, async (client) => {
          const user = one(await client.query(withValues(USER_BY_ID, [author])), `user ${author}`)
          const slug = slugOf(article.title)
          const names = [...new Set(article.tagList)]
          const [, inserted] = await pipelinedTransaction(client, [
            withValues(TAGS_GET_OR_CREATE, [names]),
            withValues(ARTICLE_INSERT, [slug, article.title, article.description, article.body, author]),
            withValues(ARTICLE_TAGS_INSERT, [slug, names]),
          ])
          const row = one(inserted, 'new article')
          const answer = {
            article: {
              slug,
              title: article.title,
              description: article.description,
              body: article.body,
              tagList: names.sort(),
              createdAt: (row['created_at'] as Date).toISOString(),
              updatedAt: (row['updated_at'] as Date).toISOString(),
              favorited: false,
              favoritesCount: 0,
              author: profileOf(user),
            },
          }
          return { answer }
        }),
      favorite: ({ reader, slug }) =>
        onClient(pool, async (client) => {
          const found = articleOf(one(await view(client, slug, reader), `article ${slug}`))
          if (found.favorited) return { answer: { article: found } }
          await pipelinedTransaction(client, [withValues(FAVORITE_INSERT, [reader, slug])])
          return {
            answer: { article: { ...found, favorited: true, favoritesCount: found.favoritesCount + 1 } },
          }
        }),
      close: () => pool.end(),
    }
  },
}
