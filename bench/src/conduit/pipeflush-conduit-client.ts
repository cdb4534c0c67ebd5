// pipeflush serving the Conduit requests through the example's own code: its Kysely on the pool, its
// entity-manager factory, its `PipeflushStore` (a unit of work per request, flushed when the work
// returns) and its repositories, and its handlers' response bodies (`api/views.ts`).

import { articleJson, commentJson } from '@pipeflush/example-conduit/api/views'
import type { Relations } from '@pipeflush/example-conduit/relations'
import { PipeflushStore } from '@pipeflush/example-conduit/repositories/pipeflush/pipeflush-store'
import type { RequestObserver } from '@pipeflush/example-conduit/repositories/store'
import type { Repositories } from '@pipeflush/example-conduit/repositories/types'
import { type DB, FLUSH_LOG } from '@pipeflush/example-conduit/schema'
import { appKysely } from '@pipeflush/example-support'
import { createEntityManagerFactory } from '@pipeflush/kysely'
import type { DriverClient } from '../series/driver-client.ts'
import type { CheckedFlush, ConduitClient, ConduitOutcome } from './conduit-requests.ts'
import { FEED_LIMIT } from './conduit-requests.ts'

/**
 * A Conduit client on `pool` as the example's `startConduit` makes one (burst, the default mode), each
 * request a `store.run` of what its handler runs, its answer the handler's body.
 *
 * @example
 * const client = await pipeflushConduitClient(await openDriver('pg', url, 4))
 * const { answer, flush } = await client.favorite({ reader: 101, slug: 'seeded-article-1' })
 */
export async function pipeflushConduitClient(pool: DriverClient): Promise<ConduitClient> {
  const db = appKysely<DB>({ driver: pool.driver, client: pool.client })
  const factory = await createEntityManagerFactory<DB, Relations>({
    client: pool.client,
    db,
    flushLog: FLUSH_LOG,
  })
  const store = new PipeflushStore(factory, { pipeline: 'burst', counter: pool.counter })

  /** Runs `work` in a new unit of work, keeping its flush's report and socket count. */
  async function run<T>(work: (repositories: Repositories) => Promise<T>) {
    let flush: CheckedFlush | undefined
    const observer: RequestObserver = {
      flushed(f) {
        flush = f
      },
    }
    const result = await store.run(work, observer)
    return { result, flush }
  }
  const outcome = <A>(answer: A, flush: CheckedFlush | undefined): ConduitOutcome<A> =>
    flush ? { answer, flush } : { answer }
  const found = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`pipeflush conduit: no ${what}`)
    return value
  }

  return {
    counter: pool.counter,
    async feed({ reader }) {
      const { result, flush } = await run(({ articles }) =>
        articles.list({ feedOf: reader }, { limit: FEED_LIMIT, offset: 0 }, reader),
      )
      const answer = {
        articles: result.articles.map((a) => articleJson(a, false)),
        articlesCount: result.articlesCount,
      }
      return outcome(answer, flush)
    },
    async article({ reader, slug }) {
      // The example's two GETs of an article page, started in one tick: one message.
      const { result, flush } = await run(({ articles, comments }) =>
        Promise.all([articles.view(slug, reader), comments.list(slug, reader)]),
      )
      const [view, comments] = result
      // The example lists comments oldest first; the page shows them newest first.
      const answer = {
        article: articleJson(found(view, `article ${slug}`)),
        comments: found(comments, `comments of ${slug}`).map(commentJson).reverse(),
      }
      return outcome(answer, flush)
    },
    async create({ author, article }) {
      const { result, flush } = await run(async ({ users, articles }) =>
        articles.create(found(await users.byId(author), `user ${author}`), article),
      )
      return outcome({ article: articleJson(result) }, flush)
    },
    async favorite({ reader, slug }) {
      const { result, flush } = await run(async ({ articles }) =>
        articles.favorite(reader, found(await articles.view(slug, reader), `article ${slug}`)),
      )
      return outcome({ article: articleJson(result) }, flush)
    },
    close: pool.close,
  }
}
