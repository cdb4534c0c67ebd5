// The Conduit cell of the request scenario (see bench/README.md, "The Conduit cell"): four requests of
// the RealWorld Conduit backend, each one unit of work on the example's schema, served the same way by
// every library. What request `i` reads and writes is plain data; the answers are the spec's bodies.
import type { articleJson, commentJson } from '@pipeflush/example-conduit/api/views'
import type { NewArticle } from '@pipeflush/example-conduit/repositories/types'
import type { ConnectionCounter } from '../measure/connection-counter.ts'
import type { DriverName, LibraryReport, SeriesName, Target } from '../series/types.ts'
import { CONDUIT_SEED, seededSlug, seededTag } from './conduit-seed.ts'

/** The requests of the cell, in the order each round serves them. */
export const CONDUIT_REQUESTS = ['feed', 'article', 'create', 'favorite'] as const
export type ConduitRequest = (typeof CONDUIT_REQUESTS)[number]

/**
 * Whether `request` writes (read, decide, flush: 2 round trips at best) or only reads (1).
 *
 * @example
 * isWrite('favorite') // true
 */
export function isWrite(request: ConduitRequest): boolean {
  return request === 'create' || request === 'favorite'
}

/** The spec's `Article` (list items have no `body`) and `Comment`, as the example's handlers answer. */
export type ArticleJson = ReturnType<typeof articleJson>
export type CommentJson = ReturnType<typeof commentJson>

/** `GET /articles/feed`: a page of the followed authors' articles, newest first, and their total. */
export interface FeedAnswer {
  readonly articles: readonly ArticleJson[]
  readonly articlesCount: number
}

/** An article page: `GET /articles/:slug` and its comments (newest first) in one unit of work. */
export interface ArticlePageAnswer {
  readonly article: ArticleJson
  readonly comments: readonly CommentJson[]
}

/** `POST /articles`, `POST /articles/:slug/favorite`: the article as its writer now sees it. */
export interface ArticleAnswer {
  readonly article: ArticleJson
}

/** The feed's page size (the spec's default `limit`). */
export const FEED_LIMIT = 20

/** What request round `i` asks, per request (readers are user ids, as a token's subject). */
export interface ConduitInputs {
  readonly feed: { readonly reader: number }
  readonly article: { readonly reader: number; readonly slug: string }
  readonly create: { readonly author: number; readonly article: NewArticle }
  readonly favorite: { readonly reader: number; readonly slug: string }
}

/** Rounds of one run at most: beyond, the favorite of round `i` would meet that of round `i - 1000`. */
export const MAX_CONDUIT_ROUNDS = 1_000

/**
 * What round `i` of a run asks: the feed and the article page of reader `1 + 37i mod 200` (article
 * `1 + 53i mod 1000`), an article by that reader with two seeded tags and a new one, and a favorite by
 * a user who favorited nothing in the seed (`101 + i mod 100`) of article `1 + 7i mod 1000`, a new
 * favorite in each of the first 1,000 rounds.
 *
 * @example
 * conduitInputs(0).favorite // { reader: 101, slug: 'seeded-article-1' }
 */
export function conduitInputs(i: number): ConduitInputs {
  if (i >= MAX_CONDUIT_ROUNDS)
    throw new RangeError(`Conduit round ${i}: at most ${MAX_CONDUIT_ROUNDS} rounds`)
  const S = CONDUIT_SEED
  const reader = 1 + ((i * 37) % S.users)
  return {
    feed: { reader },
    article: { reader, slug: seededSlug(1 + ((i * 53) % S.articles)) },
    create: {
      author: reader,
      article: {
        title: `Bench article ${i}`,
        description: `What bench article ${i} is about`,
        body: `The body of bench article ${i}.`,
        tagList: [seededTag(1 + (i % S.tags)), seededTag(1 + ((i + 7) % S.tags)), `bench-${i}`],
      },
    },
    favorite: {
      reader: S.favoritingUsers + 1 + (i % (S.users - S.favoritingUsers)),
      slug: seededSlug(1 + ((i * 7) % S.articles)),
    },
  }
}

/** A pipeflush flush's report beside the round trips the socket counted while it ran. */
export interface CheckedFlush {
  readonly report: LibraryReport
  readonly socketRoundTrips: number | undefined
}

/** What a request answered, and (pipeflush) its flush. */
export interface ConduitOutcome<A> {
  readonly answer: A
  readonly flush?: CheckedFlush
}

/** An open client of a library serving the Conduit requests one after the other. */
export interface ConduitClient {
  readonly counter: ConnectionCounter
  feed(input: ConduitInputs['feed']): Promise<ConduitOutcome<FeedAnswer>>
  article(input: ConduitInputs['article']): Promise<ConduitOutcome<ArticlePageAnswer>>
  create(input: ConduitInputs['create']): Promise<ConduitOutcome<ArticleAnswer>>
  favorite(input: ConduitInputs['favorite']): Promise<ConduitOutcome<ArticleAnswer>>
  close(): Promise<void>
}

/**
 * Request `request` of round `i` on `client`.
 *
 * @example
 * const { answer } = await serveConduit(client, 'feed', 0)
 */
export function serveConduit(
  client: ConduitClient,
  request: ConduitRequest,
  i: number,
): Promise<ConduitOutcome<unknown>> {
  const inputs = conduitInputs(i)
  switch (request) {
    case 'feed':
      return client.feed(inputs.feed)
    case 'article':
      return client.article(inputs.article)
    case 'create':
      return client.create(inputs.create)
    case 'favorite':
      return client.favorite(inputs.favorite)
  }
}

/** A library (used its best way) serving the Conduit requests. */
export interface ConduitSeries {
  readonly name: SeriesName
  readonly driver: DriverName
  /** The name, with the driver for series on both drivers. */
  readonly id: string
  readonly description: string
  unavailableReason(): Promise<string | undefined>
  /** A client of `pool` connections on the Conduit database, connected. */
  open(target: Target, pool: number): Promise<ConduitClient>
}
