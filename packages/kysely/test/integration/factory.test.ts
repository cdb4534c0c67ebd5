import { readFile } from 'node:fs/promises'
import { isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { sql } from 'kysely'
import { beforeAll, describe, expect, test } from 'vitest'
import { createEntityManagerFactory, relationsTypeSource, type TypedEntity } from '../../src/index.ts'
import { type DB, DDL } from '../fixtures/db.ts'
import type { Relations } from '../fixtures/relations.ts'

const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(DDL)
})

/** Both drivers run these tests on one database: each block starts from empty tables. */
const emptyTables = () => db.sql.unsafe('truncate author, book, review restart identity cascade')

/**
 * Of two backends in a deadlock, the server rolls back the one whose `deadlock_timeout` runs out first
 * once both wait (each checks once per wait). The run's pool checks after 3 s (time for the test to see
 * it wait and close the cycle, even on a loaded machine) and the other transaction checks after a
 * minute, so the run's backend is always the one rolled back.
 */
const checksDeadlocksLate = {
  postgresJs: { connection: { deadlock_timeout: '3s' } },
  pg: { options: '-c deadlock_timeout=3s' },
} as const

describe.each(TEST_DRIVERS)('%s: run()', (driver) => {
  beforeAll(emptyTables)
  test('wasCommitted answers from the flush log, as the core entity manager does', async () => {
    await db.sql.unsafe(
      'create table if not exists pipeflush_flush_log (flush_id uuid primary key, committed boolean not null, at timestamptz not null default now())',
    )
    const { client } = db.client(driver, { max: 1 })
    const factory = await createEntityManagerFactory<DB>({ client, flushLog: 'pipeflush_flush_log' })
    const em = factory.em()
    em.create('author', { name: `logged-${driver}` })
    const report = await em.flush()
    expect(await em.wasCommitted(report.flushId)).toBe(true)
    expect(await em.wasCommitted(crypto.randomUUID())).toBe(false)
  })

  test('flushes at the end in one round trip once warm, and returns the result and the report', async () => {
    const { client, counter } = db.client(driver, { max: 1 })
    const factory = await createEntityManagerFactory<DB>({ client })
    const work = (name: string) =>
      factory.run((em) => {
        const author = em.create('author', { name })
        const book = em.create('book', { title: `${name}'s book`, author_id: author, price: '12.50' })
        em.create('review', { book_id: book, stars: 4 })
        return author
      })
    await work('warm-up') // fetches ids
    counter.reset()
    const { result: author, report, attempts } = await work('Ada')
    expect(attempts).toBe(1)
    expect(report).toMatchObject({
      mode: 'burst',
      inserted: 3,
      statements: 3,
      roundTrips: 1,
      connected: false,
    })
    expect(counter.read().roundTrips).toBe(1)
    expect(typeof author.id).toBe('number')
    const rows = await factory.db
      .selectFrom('book')
      .select(['title', 'author_id'])
      .where('author_id', '=', author.id)
      .execute()
    expect(rows).toEqual([{ title: "Ada's book", author_id: author.id }])
    // fork(), em() by core's and @pipeflush/drizzle's name: a new unit of work on the same pool.
    const forked = factory.fork()
    expect(forked).not.toBe(factory.fork())
    expect((await forked.load('author', author.id)).name).toBe('Ada')
  })

  test("run's localSettings go over the factory's in its reads' transaction, and stay there", async () => {
    const { client } = db.client(driver, { max: 1 })
    const factory = await createEntityManagerFactory<DB>({ client, localSettings: { 'app.who': 'factory' } })
    const settings = factory.db.selectNoFrom([
      sql<string>`coalesce(current_setting('app.who', true), '')`.as('who'),
      sql<string>`coalesce(current_setting('app.request', true), '')`.as('request'),
    ])
    const { result } = await factory.run((em) => em.select(settings), {
      localSettings: { 'app.request': 'r1' },
    })
    expect(result).toEqual([{ who: 'factory', request: 'r1' }])
    expect(await factory.em().select(settings)).toEqual([{ who: 'factory', request: '' }])
  })

  test('a misspelled option is refused by name before the work runs (not dropped: a conflict not retried)', async () => {
    const { client } = db.client(driver, { max: 1 })
    const factory = await createEntityManagerFactory<DB>({ client })
    let ran = false
    const run = factory.run(
      () => {
        ran = true
      },
      { retry: 3 } as never,
    )
    await expect(run).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      message:
        'run: unknown option "retry"; the options are pipeline, flushTimeoutMs, localSettings, retries, backoffMs.',
    })
    expect(ran).toBe(false)
  })

  test('writes nothing when the work throws', async () => {
    const { client } = db.client(driver, { max: 2 })
    const factory = await createEntityManagerFactory<DB>({ client })
    const failing = factory.run((em) => {
      em.create('author', { name: 'Never' })
      throw new Error('request failed')
    })
    await expect(failing).rejects.toThrow('request failed')
    expect(await factory.db.selectFrom('author').selectAll().where('name', '=', 'Never').execute()).toEqual(
      [],
    )
  })

  // A locking read began a transaction: a work that throws afterwards (the request decides not to
  // write) left the row locked and a connection reserved until flushTimeoutMs.
  test("releases a locking read's lock at once when the work throws", async () => {
    const { client } = db.client(driver, { max: 2 })
    const factory = await createEntityManagerFactory<DB>({ client, flushTimeoutMs: 30_000 })
    const { result: author } = await factory.run((em) => em.create('author', { name: `locked-${driver}` }))
    const failing = factory.run(async (em) => {
      await em.load('author', author.id, { lock: 'update' })
      throw new Error('not enough stock')
    })
    await expect(failing).rejects.toThrow('not enough stock')
    // `nowait`: refused at once while another transaction holds the row.
    const [row] = await db.sql`select name from author where id = ${author.id} for update nowait`
    expect(row?.['name']).toBe(`locked-${driver}`)
  })

  // Two requests lock two rows in opposite orders: the server breaks the deadlock in one's read, which
  // the run retries.
  test('retries the work after a deadlock of its locking reads (SQLSTATE 40P01)', async () => {
    const { client } = db.client(driver, { max: 2, ...checksDeadlocksLate })
    const factory = await createEntityManagerFactory<DB>({ client })
    const { result: pair } = await factory.run((em) => [
      em.create('author', { name: `r1-${driver}` }),
      em.create('author', { name: `r2-${driver}` }),
    ])
    const [first, second] = pair
    const other = await db.sql.reserve()
    await other`begin`
    await other`set local deadlock_timeout = '1min'`
    await other`select 1 from author where id = ${second!.id} for update`
    const [{ pid }] = (await other`select pg_backend_pid() as pid`) as unknown as [{ pid: number }]
    let calls = 0
    let closing: Promise<unknown> | undefined
    const run = factory.run(
      async (em) => {
        calls++
        // The retry starts once the other transaction is over: a retry's read can take the first row
        // before the other, waiting for it since the first attempt, does (the server does not queue
        // them), and deadlock again.
        if (calls === 2) await closing
        await em.load('author', first!.id, { lock: 'update' })
        // The first attempt holds the first row; the other asks for it (and waits), then the attempt
        // asks for the second row, which the other holds: a deadlock as the attempt starts waiting,
        // whatever the timing (the other's request is known to wait first, by its backend).
        if (calls === 1) {
          closing = other`select 1 from author where id = ${first!.id} for update`
            .then(
              () => other`commit`,
              () => other`rollback`,
            )
            .then(
              () => other.release(),
              () => other.release(),
            )
          for (;;) {
            const [waiting] = await db.sql`select count(*)::int as n from pg_stat_activity
              where pid = ${pid} and wait_event_type = 'Lock'`
            if (waiting!.n > 0) break
            await new Promise((resolve) => setTimeout(resolve, 10))
          }
        }
        const b = await em.load('author', second!.id, { lock: 'update' })
        b.name = `${b.name}+run`
      },
      { retries: 1 },
    )
    const { attempts } = await run
    expect([attempts, calls]).toEqual([2, 2])
    const [row] = await db.sql`select name from author where id = ${second!.id}`
    expect(row?.['name']).toBe(`r2-${driver}+run`)
  })

  test('retries the work on a fresh entity manager after an optimistic-lock failure', async () => {
    const { client } = db.client(driver, { max: 4 })
    const factory = await createEntityManagerFactory<DB>({ client, versionColumn: 'version' })
    const { result: author } = await factory.run((em) => em.create('author', { name: 'v' }))
    /** Another request renames the author and commits. */
    const rename = (name: string) =>
      factory.run(async (other) => {
        const a = await other.load('author', author.id)
        a.name = name
      })
    let calls = 0
    const { attempts, result } = await factory.run(
      async (em) => {
        calls++
        const mine = await em.load('author', author.id)
        if (calls === 1) await rename('other')
        mine.name = `${mine.name}+mine`
        return mine.name
      },
      { retries: 2 },
    )
    expect({ calls, attempts, result }).toEqual({ calls: 2, attempts: 2, result: 'other+mine' })
    const noRetry = factory.run(async (em) => {
      const mine = await em.load('author', author.id)
      await rename('again')
      mine.name = 'lost'
    })
    await expect(noRetry).rejects.toSatisfy((e) => isPipeflushError(e, 'OPTIMISTIC_LOCK'))
  })

  test('retries the work after a deadlock the server broke (SQLSTATE 40P01)', async () => {
    const { client } = db.client(driver, { max: 2, ...checksDeadlocksLate })
    const factory = await createEntityManagerFactory<DB>({ client })
    const { result: pair } = await factory.run((em) => {
      const author = em.create('author', { name: 'd1' })
      return [author, em.create('book', { title: 'd2', author_id: author, price: 1 })] as const
    })
    const [author, book] = pair
    // Another transaction holds the book; the flush updates the author, then waits for the book (a
    // flush updates a referenced table before the table referencing it: two statements, in that order,
    // where one statement's rows would be locked in whatever order the server's plan reads them); the
    // other then asks for the author: a deadlock. The flush's backend detects it (see
    // `checksDeadlocksLate`) and is rolled back; the run retries and commits once the other is done.
    const other = await db.sql.reserve()
    await other`begin`
    await other`set local deadlock_timeout = '1min'`
    await other`update book set title = 'held' where id = ${book.id}`
    /** Once the flush waits for the book, the other transaction asks for the author. */
    const closeTheCycle = async () => {
      for (;;) {
        const [row] = await db.sql`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`
        if (row!.n > 0) break
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      await other`update author set name = 'held' where id = ${author.id}`.then(
        () => other`commit`,
        () => other`rollback`,
      )
      other.release()
    }
    let calls = 0
    let closed: Promise<void> | undefined
    const run = factory.run(
      async (em) => {
        calls++
        // The retry reads once the other transaction committed (its second update waited for the flush's
        // rollback), so it sees the other's values.
        if (closed !== undefined) await closed
        const a = await em.load('author', author.id)
        const b = await em.load('book', book.id)
        a.name = `${a.name}+run`
        b.title = `${b.title}+run`
        if (calls === 1) closed = closeTheCycle()
      },
      { retries: 1 },
    )
    const { attempts } = await run
    expect(attempts).toBe(calls)
    expect(attempts).toBe(2)
    const [row] = await db.sql`select a.name, b.title from author a join book b on b.author_id = a.id
      where b.id = ${book.id}`
    expect(row).toEqual({ name: 'held+run', title: 'held+run' })
  })
})

describe.each(TEST_DRIVERS)('%s: request scope', (driver) => {
  beforeAll(emptyTables)
  test('concurrent requests never share an identity map', async () => {
    const { client } = db.client(driver, { max: 10 })
    const factory = await createEntityManagerFactory<DB>({ client })
    const { result: shared } = await factory.run((em) => em.create('author', { name: 'shared' }))
    const seen: TypedEntity<DB, 'author'>[] = []
    const runs = Array.from({ length: 40 }, (_, i) =>
      factory.run(async (em) => {
        const [viaQuery] = await em.load(em.db.selectFrom('author').selectAll().where('id', '=', shared.id))
        const viaKey = await em.load('author', shared.id)
        expect(viaKey).toBe(viaQuery)
        seen.push(viaKey)
        // A date no other request writes: with a shared one, a request that loads the author after
        // another committed that date has nothing to update.
        viaKey.born_on = `2000-${String(Math.floor(i / 28) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`
        em.create('book', { title: `request ${i}`, author_id: viaKey, price: i })
        await new Promise((r) => setTimeout(r, i % 3))
        expect(em.pending).toMatchObject({ inserts: 1, updates: 1, deletes: 0 })
        return em
      }),
    )
    const results = await Promise.all(runs)
    expect(new Set(seen).size).toBe(40)
    expect(new Set(results.map((r) => r.result)).size).toBe(40)
    const books = await factory.db
      .selectFrom('book')
      .select('title')
      .where('title', 'like', 'request %')
      .execute()
    expect(books).toHaveLength(40)
  })

  test('em() is cheap: no query, the schema is read once per client', async () => {
    const { client, counter } = db.client(driver, { max: 1 })
    const factory = await createEntityManagerFactory<DB>({ client })
    counter.reset()
    const ems = Array.from({ length: 1000 }, () => factory.em())
    expect(counter.read().roundTrips).toBe(0)
    expect(new Set(ems).size).toBe(1000)
    await createEntityManagerFactory<DB>({ client })
    expect(counter.read().roundTrips).toBe(0)
  })
})

describe.each(TEST_DRIVERS)('%s: relations typed from the catalog', (driver) => {
  test('relationsTypeSource writes the relations type the type tests use, and it types a graph load', async () => {
    const { client, counter } = db.client(driver, { max: 1 })
    const factory = await createEntityManagerFactory<DB, Relations>({ client })
    const written = await readFile(new URL('../fixtures/relations.ts', import.meta.url), 'utf8')
    expect(relationsTypeSource(factory.schema)).toBe(written)

    await emptyTables()
    await factory.run((em) => {
      const ada = em.create('author', { name: 'Ada' })
      const book = em.create('book', { title: 'Notes', author_id: ada, price: '1.00' })
      em.create('review', { book_id: book, stars: 5 })
    })
    const em = factory.em()
    counter.reset()
    const [ada] = await em.find('author', { name: 'Ada' }, { with: { books: { reviews: true } } })
    expect(counter.read().roundTrips).toBe(1)
    const books = em.related(ada!, 'books')
    expect(books.map((b) => b.title)).toEqual(['Notes'])
    const reviews = em.related(books[0]!, 'reviews')
    expect(reviews.map((r) => r.stars)).toEqual([5])
    expect(em.related(reviews[0]!, 'book')).toBe(books[0])
  })
})
