import { createEntityManagerFactory } from '@pipeflush/drizzle'
import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { comparable } from '../src/answers.ts'
import { appDrizzle } from '../src/app-db.ts'
import { type Measured, meteredRun, runScript } from '../src/measure.ts'
import type { Bookstore } from '../src/requests/bookstore.ts'
import { drizzleBookstore } from '../src/requests/drizzle-alone.ts'
import { pipeflushBookstore } from '../src/requests/pipeflush.ts'
import { DDL, RESET } from '../src/schema.ts'
import { SCRIPT } from '../src/script.ts'

/**
 * Each request's round trips, counted at the pool's socket, as `npm run example:drizzle` prints them:
 * pipeflush in burst (a read one round trip, a write its reads then its flush) and off (BEGIN, each
 * statement and COMMIT in turn), and Drizzle alone. Drizzle sends its queries unprepared; on
 * postgres.js such a query with parameters takes two round trips (its parameters' types asked
 * first), one without parameters one (BEGIN, COMMIT).
 */
const EXPECTED: Readonly<Record<string, { burst: number; off: number; pg: number; 'postgres.js': number }>> =
  {
    // Drizzle: BEGIN, the author, the books, the tags, the links, COMMIT.
    'Add an author and their books': { burst: 1, off: 6, pg: 6, 'postgres.js': 10 },
    // Drizzle: the page (a relational query), the total, then the review counts of the page's books.
    'The catalogue': { burst: 1, off: 1, pg: 3, 'postgres.js': 5 },
    'The catalogue, one tag': { burst: 1, off: 1, pg: 3, 'postgres.js': 6 },
    'The catalogue, page 3': { burst: 1, off: 1, pg: 3, 'postgres.js': 5 },
    // Drizzle: the author's graph, the review counts.
    "An author's page": { burst: 1, off: 1, pg: 2, 'postgres.js': 4 },
    'An author not found': { burst: 1, off: 1, pg: 1, 'postgres.js': 2 },
    // Drizzle: BEGIN, the book, the review, the rating, the count, COMMIT.
    'Review a new book': { burst: 2, off: 5, pg: 6, 'postgres.js': 10 },
    'Review a book': { burst: 2, off: 5, pg: 6, 'postgres.js': 10 },
    // pipeflush off: the read, BEGIN, the book, a link removed, the tag upserted, the links, COMMIT.
    'Edit a book: title and tags': { burst: 2, off: 7, pg: 8, 'postgres.js': 14 },
    'Edit a book: its price': { burst: 2, off: 4, pg: 5, 'postgres.js': 8 },
    // Drizzle deletes without reading (delete ... returning); pipeflush removes an entity it read.
    'Remove a book': { burst: 2, off: 4, pg: 1, 'postgres.js': 2 },
    'The catalogue again': { burst: 1, off: 1, pg: 3, 'postgres.js': 5 },
  }

const db = useTestDatabase()
const admin = (text: string) => db.sql.unsafe(text)

beforeAll(async () => {
  await admin(DDL)
  // Answers come 5 ms after the question at the earliest: what a client sends without waiting has
  // all left before the first answer comes, so the counts do not depend on the machine's speed.
  await db.proxy.setLatency(5)
})

afterAll(async () => {
  await db.proxy.setLatency(0)
})

/** The script once to warm the pool up, then once measured, each from the seeded rows. */
async function measured(
  store: Bookstore,
  app: ReturnType<typeof db.client>,
  flushOf?: Parameters<typeof runScript>[2],
) {
  await admin(RESET)
  await runScript(store, app.counter)
  await admin(RESET)
  return runScript(store, app.counter, flushOf)
}

describe.each(TEST_DRIVERS)(
  '%s: the bookstore, through @pipeflush/drizzle and with Drizzle alone',
  (driver: DriverName) => {
    const answers = new Map<string, unknown[]>()
    const trips = (run: readonly Measured[]) =>
      Object.fromEntries(run.map((m) => [m.step.name, m.roundTrips]))
    const expected = (column: 'burst' | 'off' | DriverName) =>
      Object.fromEntries(SCRIPT.map((s) => [s.name, EXPECTED[s.name]![column as 'burst']]))

    for (const mode of ['burst', 'off'] as const)
      test(`pipeflush, ${mode}: each request's round trips at the socket; every flush report equals them`, async () => {
        const app = db.client(driver, { max: 1 })
        const appDb = appDrizzle(app)
        const factory = await createEntityManagerFactory({ db: appDb, pipeline: mode })
        const metered = meteredRun(factory, app.counter)
        const run = await measured(pipeflushBookstore(appDb, metered.run), app, metered.last)
        expect(trips(run)).toEqual(expected(mode))
        for (const m of run) if (m.flush) expect(m.flush.socket, m.step.name).toBe(m.flush.reported)
        answers.set(
          mode,
          run.map((m) => comparable(m.answer)),
        )
      })

    test("Drizzle alone: each request's round trips at the socket; the same answers as pipeflush's", async () => {
      const app = db.client(driver, { max: 1 })
      const run = await measured(drizzleBookstore(appDrizzle(app)), app)
      expect(trips(run)).toEqual(expected(driver === 'postgres.js' ? 'postgres.js' : 'pg'))
      const own = run.map((m) => comparable(m.answer))
      for (const [mode, theirs] of answers) expect(own, `Drizzle alone vs pipeflush ${mode}`).toEqual(theirs)
      expect(answers.size).toBe(2)
    })
  },
)
