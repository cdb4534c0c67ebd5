import { appKysely, FlushMeter } from '@pipeflush/example-support'
import { createEntityManagerFactory } from '@pipeflush/kysely'
import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { startServer } from '../src/api/server.ts'
import { outboxHooks } from '../src/outbox.ts'
import { formatComparison } from '../src/print.ts'
import { createSchema, type DB, resetData } from '../src/schema.ts'
import { runScript } from '../src/script.ts'

const db = useTestDatabase()
/** Setup and checks go through a direct postgres.js client, apart from the application's pool. */
const admin = (text: string) => db.sql.unsafe(text)

beforeAll(async () => {
  await createSchema(admin)
  await db.proxy.setLatency(1)
})

/** The application as the example runs it: a pool of `driver` and its Kysely, both given to pipeflush. */
async function openApp(driver: DriverName, options: { max: number; pipeline?: 'burst' | 'off' }) {
  const app = db.client(driver, { max: options.max })
  const factory = await createEntityManagerFactory<DB>({
    client: app.client,
    db: appKysely<DB>(app),
    ...(options.pipeline ? { pipeline: options.pipeline } : {}),
    hooks: outboxHooks,
  })
  const meter = new FlushMeter(factory, app.counter, () => {})
  return { app, meter, server: await startServer(meter) }
}

/** What the script leaves in the database, ids left out. */
async function contents() {
  const q = (text: string) =>
    db.sql.unsafe(text).then((rows) => rows.map((r) => Object.values(r).join(' | ')))
  return {
    authors: await q('select name, bio from author order by name'),
    books: await q(
      `select b.isbn, b.price::text, p.name from book b left join publisher p on p.id = b.publisher_id order by isbn`,
    ),
    reviews: await q(
      'select b.isbn, r.reviewer, r.stars from review r join book b on b.id = r.book_id order by 1, 2',
    ),
    tags: await q(
      `select b.isbn, t.name from book_tag bt join book b on b.id = bt.book_id join tag t on t.id = bt.tag_id order by 1, 2`,
    ),
    tagNames: await q('select name from tag order by name'),
    publishers: await q('select name from publisher order by name'),
    // The outbox: one event per change it describes, written by the same flushes (see outbox.ts).
    events: await q(
      `select o.topic, coalesce(a.name, '-'), (o.payload - 'id')::text from outbox o left join author a on a.id = o.author_id order by o.id`,
    ),
  }
}

describe.each(TEST_DRIVERS)('%s: the scripted requests', (driver) => {
  const finals: unknown[] = []

  for (const pipeline of ['burst', 'off'] as const) {
    test(`${pipeline}: every request answers as expected and writes what it says`, async () => {
      await resetData(admin)
      const { app, meter, server } = await openApp(driver, { max: 1, pipeline })
      try {
        const steps = await runScript(server.url, app.counter)
        expect(steps.map((s) => `${s.method} ${s.status}`)).toEqual([
          'POST 201',
          'POST 201',
          'PATCH 200',
          'GET 200',
          'DELETE 200',
          'GET 404',
          'POST 201',
        ])
        const [create, , revise, , remove, , third] = steps
        // Tags and publishers are upserts (got or created by the flush): 8 of the 29 new rows of old.
        expect(create?.flush).toMatchObject({
          mode: pipeline,
          inserted: 21,
          upserted: 8,
          statements: 7,
          waves: 3,
        })
        expect(revise?.flush).toMatchObject({ inserted: 3, upserted: 4, updated: 3, deleted: 7 })
        expect(remove?.flush).toMatchObject({ deleted: 11, inserted: 1, statements: 5 })
        expect(third?.flush).toMatchObject({ inserted: 12, upserted: 6, statements: 7, waves: 3 })
        for (const s of [create, revise, remove, third]) {
          const flush = s!.flush!
          // The report's round trips are the socket's, and the pool's one connection was already open.
          expect(meter.of(flush)?.socketRoundTrips).toBe(flush.roundTrips)
          expect(flush).toMatchObject({
            driver: driver === 'postgres.js' ? 'postgres.js' : 'pg',
            connected: false,
          })
          // Burst: one round trip (two when ids are fetched first); off: BEGIN, each statement, COMMIT.
          if (pipeline === 'burst') expect(flush.roundTrips).toBe(flush.idFetch ? 2 : 1)
          else expect(flush.roundTrips).toBeGreaterThanOrEqual(flush.statements + 2)
          // Whatever the request reads it decides from, it reads in one round trip (a graph load),
          // counted at the socket; a POST reads nothing: its tags and publishers are got or created
          // by its flush, which is the whole request.
          expect(s!.roundTrips).toBe((s!.method === 'POST' ? 0 : 1) + flush.roundTrips)
        }
        // A POST that only creates: one round trip in burst, with the ids in the pool.
        if (pipeline === 'burst') expect([create!.roundTrips, third!.roundTrips]).toEqual([1, 1])
        expect(meter.mismatches).toEqual([])
      } finally {
        await server.close()
      }
      const state = await contents()
      expect(state).toEqual({
        authors: ['N. K. Jemisin | ', 'Ursula K. Le Guin | Earthsea, the Hainish Cycle, and much more.'],
        books: [
          'LG-1968-EARTHSEA | 8.99 | Parnassus',
          'LG-1969-LEFTHAND | 13.05 | Gollancz',
          'NJ-2015-FIFTH | 10.50 | Orbit',
          'NJ-2020-CITY | 16.00 | Ace',
        ],
        reviews: [
          'LG-1968-EARTHSEA | ged | 5',
          'LG-1968-EARTHSEA | vetch | 4',
          'LG-1969-LEFTHAND | estraven | 5',
          'NJ-2015-FIFTH | essun | 5',
        ],
        tags: [
          'LG-1968-EARTHSEA | classic',
          'LG-1968-EARTHSEA | fantasy',
          'LG-1968-EARTHSEA | magic',
          'LG-1969-LEFTHAND | classic',
          'LG-1969-LEFTHAND | science-fiction',
          'NJ-2015-FIFTH | broken-earth',
          'NJ-2015-FIFTH | fantasy',
          'NJ-2015-FIFTH | science-fiction',
          'NJ-2020-CITY | fantasy',
          'NJ-2020-CITY | new-york',
        ],
        tagNames: [
          'broken-earth',
          'classic',
          'coming-of-age',
          'dystopia',
          'fantasy',
          'magic',
          'new-york',
          'science-fiction',
          'time-travel',
          'utopia',
        ],
        publishers: [
          'Ace',
          'Doubleday',
          'Four Walls Eight Windows',
          'Gollancz',
          'Harper & Row',
          'Orbit',
          'Parnassus',
        ],
        // Each event was written by the flush of the change it describes; a deleted author's events
        // keep no author (on delete set null).
        events: [
          'author.created | Ursula K. Le Guin | {"name": "Ursula K. Le Guin"}',
          'book.published | Ursula K. Le Guin | {"isbn": "LG-1968-EARTHSEA", "title": "A Wizard of Earthsea"}',
          'book.published | Ursula K. Le Guin | {"isbn": "LG-1969-LEFTHAND", "title": "The Left Hand of Darkness"}',
          'book.published | Ursula K. Le Guin | {"isbn": "LG-1974-DISPOSSESSED", "title": "The Dispossessed"}',
          'author.created | - | {"name": "Octavia E. Butler"}',
          'book.published | - | {"isbn": "OB-1979-KINDRED", "title": "Kindred"}',
          'book.published | - | {"isbn": "OB-1993-SOWER", "title": "Parable of the Sower"}',
          'book.repriced | Ursula K. Le Guin | {"isbn": "LG-1968-EARTHSEA", "price": "8.99"}',
          'book.repriced | Ursula K. Le Guin | {"isbn": "LG-1969-LEFTHAND", "price": "13.05"}',
          'author.deleted | - | {}',
          'author.created | N. K. Jemisin | {"name": "N. K. Jemisin"}',
          'book.published | N. K. Jemisin | {"isbn": "NJ-2015-FIFTH", "title": "The Fifth Season"}',
          'book.published | N. K. Jemisin | {"isbn": "NJ-2020-CITY", "title": "The City We Became"}',
        ],
      })
      finals.push(state)
    })
  }

  test('both modes leave the same database', () => {
    expect(finals).toHaveLength(2)
    expect(finals[0]).toEqual(finals[1])
  })
})

describe.each(TEST_DRIVERS)('%s: errors', (driver) => {
  test('bad bodies are 400, unknown authors and books 404, and nothing is written', async () => {
    await resetData(admin)
    const { server } = await openApp(driver, { max: 2 })
    const send = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        body: body === undefined ? null : JSON.stringify(body),
      })
      return { status: res.status, body: (await res.json()) as { error?: string; result?: { id: number } } }
    }
    try {
      expect(
        (await send('POST', '/authors', { name: 'X', books: [{ title: 'T', isbn: 'I', price: 'cheap' }] }))
          .status,
      ).toBe(400)
      expect((await send('POST', '/authors', { name: '' })).status).toBe(400)
      expect((await send('PATCH', '/authors/999', { bio: 'b' })).status).toBe(404)
      const created = await send('POST', '/authors', {
        name: 'Y',
        books: [{ title: 'T', isbn: 'Y-1', price: '1.00' }],
      })
      const id = created.body.result!.id
      const missingBook = await send('PATCH', `/authors/${id}`, { bio: 'changed', retire: ['NOPE'] })
      expect(missingBook).toMatchObject({ status: 404, body: { error: `author ${id} has no book NOPE` } })
      const duplicate = await send('POST', '/authors', {
        name: 'Z',
        books: [{ title: 'T', isbn: 'Y-1', price: '1.00' }],
      })
      expect(duplicate.status).toBe(409)
      expect((await send('GET', '/nowhere')).status).toBe(404)
    } finally {
      await server.close()
    }
    expect(await db.sql`select name, bio from author`).toEqual([{ name: 'Y', bio: null }])
  })
})

describe('the side-by-side table', () => {
  const step = (path: string, ms: number, roundTrips: number) => ({
    method: 'PATCH',
    path,
    status: 200,
    did: [],
    flush: undefined,
    error: undefined,
    ms,
    roundTrips,
    result: undefined,
    metered: undefined,
  })

  test('shows each request in RTTs when the RTT is given, and no such column without it', () => {
    const byMode = new Map([['burst', [[step('/authors/4', 47.84, 2)]]]])
    const withRtt = formatComparison(byMode, 20.8)
    expect(withRtt.split('\n')[0]).toContain('request RTT')
    expect(withRtt.split('\n')[2]).toMatch(/47\.8\s+2\.30$/)
    expect(formatComparison(byMode)).not.toContain('RTT')
  })

  test("shows the median of the runs' times, the first run's path, and round trips as counted (a range when runs differ)", () => {
    const runs = [
      [step('/authors/4', 52, 2), step('/authors/5', 40, 2)],
      [step('/authors/7', 46, 2), step('/authors/8', 41, 3)],
      [step('/authors/10', 47, 2), step('/authors/11', 60, 2)],
    ]
    const lines = formatComparison(new Map([['burst', runs]]), 20).split('\n')
    expect(lines[2]).toMatch(/^PATCH \/authors\/4\s+0\s+0\.0\s+2\s+47\.0\s+2\.35$/)
    expect(lines[3]).toMatch(/^PATCH \/authors\/5\s+0\s+0\.0\s+2-3\s+41\.0\s+2\.05$/)
    // An even number of runs: the mean of the two middle ones.
    const two = formatComparison(new Map([['burst', runs.slice(0, 2)]]), 20).split('\n')
    expect(two[2]).toMatch(/\s49\.0\s+2\.45$/)
  })
})
