// The request scenario's Conduit cell against a real PostgreSQL behind toxiproxy: each library serves
// each request in exactly the round trips below at the socket (pipeflush: 1 per GET, 2 per write, its
// flush reports equal to the socket), every library answers the same and leaves the same tables.
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CONDUIT_REQUESTS, type ConduitRequest, type FeedAnswer } from '../src/conduit/conduit-requests.ts'
import { CONDUIT_SERIES } from '../src/conduit/series.ts'
import { createConduitSchema, resetConduit } from '../src/env/conduit-schema.ts'
import { measureConduit } from '../src/measure/conduit-run.ts'

const db = useTestDatabase()

/** Round trips at the socket of each request, per library, on a warm pool. */
const EXPECTED: Readonly<Record<string, Readonly<Record<ConduitRequest, number>>>> = {
  'pipeflush-burst (postgres.js)': { feed: 1, article: 1, create: 2, favorite: 2 },
  'pipeflush-burst (pg)': { feed: 1, article: 1, create: 2, favorite: 2 },
  // The page and the count on two connections; BEGIN, the new tag, the article, its links, COMMIT after
  // the author and the tags read side by side; BEGIN, the favorite, COMMIT after the view.
  mikroorm: { feed: 2, article: 1, create: 7, favorite: 4 },
  'pg-pipeline': { feed: 1, article: 1, create: 2, favorite: 2 },
}

const ROUNDS = 3
const WARMUP = 1

/** Each library's answers (slugs' random suffixes and new rows' timestamps masked) and tables after its rounds. */
const answers = new Map<string, unknown[]>()
const tables = new Map<string, Record<string, unknown>>()

/** An answer with what differs by nature from library to library masked: random slug suffixes, new rows' times. */
function masked(answer: unknown): unknown {
  return JSON.parse(
    JSON.stringify(answer, (key, value) => {
      if (key === 'slug' && typeof value === 'string') return value.replace(/-[0-9a-f]{8}$/, '-*')
      // Seeded rows are from 2024; rows the rounds created are from now.
      if ((key === 'createdAt' || key === 'updatedAt') && typeof value === 'string' && value >= '2025')
        return 'new'
      return value
    }),
  )
}

/** What the rounds wrote, whatever ids each library gave its rows. */
async function written(): Promise<Record<string, unknown>> {
  const [row] = await db.sql.unsafe(`select
    (select count(*) from article) as articles, (select count(*) from tag) as tags,
    (select string_agg(title || ':' || author_id || ':' || description, ',' order by title) from article where id > 1000) as new_articles,
    (select string_agg(name, ',' order by name) from tag where id > 40) as new_tags,
    (select string_agg(a.title || ':' || t.name, ',' order by a.title, t.name)
       from article_tag x join article a on a.id = x.article_id join tag t on t.id = x.tag_id where a.id > 1000) as new_links,
    (select string_agg(user_id || ':' || article_id, ',' order by user_id, article_id) from favorite where user_id > 100) as new_favorites,
    (select count(*) from favorite) as favorites, (select count(*) from comment) as comments`)
  return { ...row }
}

beforeAll(async () => {
  await createConduitSchema(db.sql)
  // Answers come back 5 ms after the request at the earliest, so a pipelined message always goes out
  // whole before any answer arrives and the count cannot depend on the machine's speed.
  await db.proxy.setLatency(5)
})

afterAll(async () => {
  await db.proxy.setLatency(0)
})

describe('Conduit cell', () => {
  for (const series of CONDUIT_SERIES) {
    const expected = EXPECTED[series.id]
    test(`${series.id}: each request in exactly ${JSON.stringify(expected)} round trips at the socket`, async (ctx) => {
      const reason = await series.unavailableReason()
      if (reason) ctx.skip(reason)
      const mine: unknown[] = []
      const samples = await measureConduit(series, { url: db.proxiedUrl }, () => resetConduit(db.sql), {
        samples: ROUNDS,
        warmup: WARMUP,
        pool: 4,
        onAnswer: (request, round, answer) => mine.push({ request, round, answer: masked(answer) }),
      })
      answers.set(series.id, mine)
      tables.set(series.id, await written())
      for (const request of CONDUIT_REQUESTS) {
        const of = samples.filter((s) => s.request === request)
        expect(
          of.map((s) => s.roundTrips),
          request,
        ).toEqual(Array.from({ length: ROUNDS }, () => expected?.[request]))
        expect(
          of.map((s) => s.openingRoundTrips),
          request,
        ).toEqual([0, 0, 0])
        if (series.name !== 'pipeflush-burst') continue
        // The flush's share: none for a read, one for a write (no id fetch this early), as the socket saw it.
        const flush = request === 'create' || request === 'favorite' ? 1 : 0
        expect(
          of.map((s) => [s.flush?.report.roundTrips, s.flush?.socketRoundTrips, s.flush?.report.idFetch]),
          request,
        ).toEqual(Array.from({ length: ROUNDS }, () => [flush, flush, false]))
      }
    })
  }

  test('every library answers the same and leaves the same tables', () => {
    const [first, ...others] = [...answers.entries()]
    expect(first?.[1]).toHaveLength((ROUNDS + WARMUP) * CONDUIT_REQUESTS.length)
    const feed = first?.[1][0] as { answer: FeedAnswer } | undefined
    expect([feed?.answer.articles.length, feed?.answer.articlesCount]).toEqual([20, 60])
    for (const [id, mine] of others) expect(mine, `${id} vs ${first?.[0]}`).toEqual(first?.[1])
    const [firstTables, ...otherTables] = [...tables.entries()]
    expect(firstTables?.[1]['new_favorites']).toBeTruthy()
    for (const [id, state] of otherTables)
      expect(state, `${id} vs ${firstTables?.[0]}`).toEqual(firstTables?.[1])
  })
})
