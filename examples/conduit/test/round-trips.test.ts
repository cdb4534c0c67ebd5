import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { type Implementation, startConduit } from '../src/app.ts'
import { targetRoundTrips } from '../src/measure/endpoint-table.ts'
import { measureSuite } from '../src/measure/measure-suite.ts'
import { createSchema } from '../src/schema.ts'
import { findCollection } from '../src/suite/realworld-files.ts'

/**
 * Round trips of each request of the RealWorld suite, counted at the pool's socket: pipeflush in
 * burst and off, and the plain Kysely repositories (each query awaited). pipeflush's burst takes one
 * for a read (every GET), two for a write (read, decide, flush) or one where the write reads nothing.
 */
const EXPECTED: readonly {
  name: string
  route: string
  burst: number
  off: number
  kysely: number
}[] = [
  { name: 'Register', route: 'POST /api/users', burst: 1, off: 3, kysely: 1 },
  { name: 'Login', route: 'POST /api/users/login', burst: 1, off: 1, kysely: 1 },
  { name: 'Login and Remember Token', route: 'POST /api/users/login', burst: 1, off: 1, kysely: 1 },
  { name: 'Current User', route: 'GET /api/user', burst: 1, off: 1, kysely: 1 },
  // The same email: nothing changed, nothing to flush.
  { name: 'Update User', route: 'PUT /api/user', burst: 1, off: 1, kysely: 2 },
  // Empty lists: the page (load(query) with its graph) and the count, in one message.
  { name: 'All Articles', route: 'GET /api/articles', burst: 1, off: 1, kysely: 2 },
  { name: 'Articles by Author', route: 'GET /api/articles', burst: 1, off: 1, kysely: 2 },
  {
    name: 'Articles Favorited by Username',
    route: 'GET /api/articles',
    burst: 1,
    off: 1,
    kysely: 2,
  },
  { name: 'Articles by Tag', route: 'GET /api/articles', burst: 1, off: 1, kysely: 2 },
  { name: 'Create Article', route: 'POST /api/articles', burst: 2, off: 6, kysely: 6 },
  { name: 'Feed', route: 'GET /api/articles/feed', burst: 1, off: 1, kysely: 2 },
  // A page of one article: the page, its graph, the reader's flags, its favorites count and the total, in one message.
  { name: 'All Articles', route: 'GET /api/articles', burst: 1, off: 1, kysely: 7 },
  { name: 'All Articles with auth', route: 'GET /api/articles', burst: 1, off: 1, kysely: 7 },
  { name: 'Articles by Author', route: 'GET /api/articles', burst: 1, off: 1, kysely: 7 },
  {
    name: 'Articles by Author with auth',
    route: 'GET /api/articles',
    burst: 1,
    off: 1,
    kysely: 7,
  },
  // The graph load with the reader's flags and the favorites count.
  {
    name: 'Single Article by slug',
    route: 'GET /api/articles/:slug',
    burst: 1,
    off: 1,
    kysely: 6,
  },
  { name: 'Articles by Tag', route: 'GET /api/articles', burst: 1, off: 1, kysely: 7 },
  // The article as the response shows it (gap 1), then the flush.
  { name: 'Update Article', route: 'PUT /api/articles/:slug', burst: 2, off: 4, kysely: 7 },
  {
    name: 'Favorite Article',
    route: 'POST /api/articles/:slug/favorite',
    burst: 2,
    off: 4,
    kysely: 7,
  },
  {
    name: 'Articles Favorited by Username',
    route: 'GET /api/articles',
    burst: 1,
    off: 1,
    kysely: 7,
  },
  {
    name: 'Articles Favorited by Username with auth',
    route: 'GET /api/articles',
    burst: 1,
    off: 1,
    kysely: 7,
  },
  {
    name: 'Unfavorite Article',
    route: 'DELETE /api/articles/:slug/favorite',
    burst: 2,
    off: 4,
    kysely: 7,
  },
  {
    name: 'Create Comment for Article',
    route: 'POST /api/articles/:slug/comments',
    burst: 2,
    off: 4,
    kysely: 3,
  },
  {
    name: 'All Comments for Article',
    route: 'GET /api/articles/:slug/comments',
    burst: 1,
    off: 1,
    kysely: 4,
  },
  {
    name: 'All Comments for Article without login',
    route: 'GET /api/articles/:slug/comments',
    burst: 1,
    off: 1,
    kysely: 3,
  },
  {
    name: 'Delete Comment for Article',
    route: 'DELETE /api/articles/:slug/comments/:id',
    burst: 2,
    off: 4,
    kysely: 3,
  },
  { name: 'Delete Article', route: 'DELETE /api/articles/:slug', burst: 2, off: 5, kysely: 8 },
  { name: 'Register Celeb', route: 'POST /api/users', burst: 1, off: 3, kysely: 1 },
  { name: 'Profile', route: 'GET /api/profiles/:username', burst: 1, off: 1, kysely: 2 },
  { name: 'Follow Profile', route: 'POST /api/profiles/:username/follow', burst: 2, off: 4, kysely: 3 },
  { name: 'Unfollow Profile', route: 'DELETE /api/profiles/:username/follow', burst: 2, off: 4, kysely: 3 },
  { name: 'All Tags', route: 'GET /api/tags', burst: 1, off: 1, kysely: 1 },
]

const collection = findCollection()
const missing = 'missing' in collection ? collection.missing : undefined

const db = useTestDatabase()

beforeAll(async () => {
  await createSchema((text) => db.sql.unsafe(text))
})

test('in burst every request is within its target: a read 1, a write 2', () => {
  for (const e of EXPECTED) expect(e.burst, e.name).toBeLessThanOrEqual(targetRoundTrips(e.route))
})

const CONFIGURATIONS: readonly { key: 'burst' | 'off' | 'kysely'; implementation: Implementation }[] = [
  { key: 'burst', implementation: 'pipeflush' },
  { key: 'off', implementation: 'pipeflush' },
  { key: 'kysely', implementation: 'kysely' },
]

describe.each(TEST_DRIVERS)('%s: round trips per request of the suite, at the socket', (driver) => {
  for (const { key, implementation } of CONFIGURATIONS) {
    test.skipIf(missing !== undefined)(missing ? `skipped: ${missing}` : `${key}: as today`, async () => {
      if (!('path' in collection)) return
      // One connection, requests one at a time: each request's round trips are its own.
      const pool = db.client(driver, { max: 1 })
      const conduit = await startConduit({
        pool,
        implementation,
        ...(implementation === 'pipeflush'
          ? { pipeline: key === 'off' ? ('off' as const) : ('burst' as const) }
          : {}),
        scryptN: 1024,
      })
      try {
        await measureSuite(conduit, collection.path) // the connection opened, id blocks fetched
        const { suite, samples } = await measureSuite(conduit, collection.path)
        expect(suite.failures).toEqual([])
        expect(samples.map((s) => [s.name, s.route, s.roundTrips])).toEqual(
          EXPECTED.map((e) => [e.name, e.route, e[key]]),
        )
        for (const s of samples) {
          if (implementation === 'kysely') {
            expect(s.flush).toBeUndefined()
            continue
          }
          // Every flush report equals the socket's count; burst flushes a write in one round trip.
          expect(s.flush?.socket, s.name).toBe(s.flush?.roundTrips)
          expect(s.flush?.idFetch, s.name).toBe(false)
          if (key === 'burst') expect(s.flush?.roundTrips, s.name).toBeLessThanOrEqual(1)
        }
      } finally {
        await conduit.close()
      }
    })
  }
})
