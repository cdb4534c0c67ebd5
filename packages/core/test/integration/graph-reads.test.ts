import { type Entity, EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// Reads of a unit of work: every read started in one tick goes in one round trip on one connection;
// a graph of relations goes in the same message as its roots, whatever its depth. Round trips are
// counted at the socket.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table publisher (id bigserial primary key, name text not null);
    create table author (id bigserial primary key, name text not null, born date);
    create table book (id bigserial primary key, author_id bigint not null references author,
      publisher_id bigint references publisher, title text not null, price numeric(8, 2), meta jsonb);
    create table review (id bigserial primary key, book_id bigint not null references book, stars int2 not null,
      body text);
    create table tag (id bigserial primary key, name text not null unique);
    create table book_tag (book_id bigint not null references book, tag_id bigint not null references tag,
      primary key (book_id, tag_id));
    create view priced as select id, title, price from book where price is not null;
    create view broken as select id, 1 / (id - id) as boom from author;
    create function unparsable() returns boolean language plpgsql as $f$ begin execute 'selec 1'; return true; end $f$;
    insert into publisher (name) values ('Penguin'), ('Faber');
    insert into author (name, born) values ('Ada', '1815-12-10'), ('Grace', '1906-12-09'), ('Alan', null);
    insert into book (author_id, publisher_id, title, price, meta) values
      (1, 1, 'Notes', 12.50, '{"pages": 42}'), (1, null, 'Letters', null, null), (2, 2, 'Compilers', 30, '[1, 2]');
    insert into review (book_id, stars, body) values (1, 5, 'great'), (1, 4, null), (3, 3, 'dense');
    insert into tag (name) values ('math'), ('history'), ('code');
    insert into book_tag values (1, 1), (1, 2), (3, 3);
  `)
})

/** The names of entities, sorted (for comparisons that do not depend on order). */
const names = (es: unknown) => (es as Entity[]).map((e) => String(e['name'] ?? e['title'])).sort()

describe.each(TEST_DRIVERS)('%s', (driver) => {
  async function setup() {
    const c = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(c.client)
    await c.query('select 1') // a warm connection: the reads below count their own round trips
    return { ...c, root }
  }

  test('a read started while a batch is in flight goes in the next batch, once it settled, on the same connection', async () => {
    const c = db.client(driver, { max: 2 })
    const root = await EntityManager.connect(c.client)
    await c.query('select 1') // one warm connection: a second batch sent beside the first would open another
    const em = root.fork()
    const sockets = c.counter.read().connections
    c.counter.reset()
    const first = em.load('author', 1)
    await new Promise((resolve) => setImmediate(resolve)) // the first batch is on its way
    const [ada, grace, books] = await Promise.all([
      first,
      em.load('author', 2),
      em.find('book', { author_id: 1 }),
    ])
    expect(c.counter.read()).toMatchObject({ roundTrips: 2, connections: sockets })
    expect([ada!['name'], grace!['name']]).toEqual(['Ada', 'Grace'])
    expect(names(books)).toEqual(['Letters', 'Notes'])
  })

  test('reads started in several ticks while a batch is in flight all go in the next batch: two round trips', async () => {
    const c = db.client(driver, { max: 2 })
    const root = await EntityManager.connect(c.client)
    await c.query('select 1')
    const em = root.fork()
    c.counter.reset()
    const slow = em.select({ text: 'select pg_sleep(0.3)', params: [] })
    await new Promise((resolve) => setImmediate(resolve)) // the first batch is on its way
    const later: Promise<unknown>[] = []
    for (const id of [1, 2, 1]) {
      later.push(em.load('author', id), em.find('book', { author_id: id }))
      await new Promise((resolve) => setTimeout(resolve, 20)) // another macrotask, the first batch still in flight
    }
    const [ada, adaBooks, grace, , again] = await Promise.all(later)
    await slow
    expect(c.counter.read().roundTrips).toBe(2)
    expect([(ada as Entity)['name'], (grace as Entity)['name']]).toEqual(['Ada', 'Grace'])
    expect(again).toBe(ada)
    expect(names(adaBooks as Entity[])).toEqual(['Letters', 'Notes'])
  })

  // The graph's levels read one snapshot (a transaction in the message); a select that does not parse
  // fails the message: its transaction rolled back (none is open then, but an error of a text parsed
  // as a statement runs looks the same: see below), then each read again on its own.
  test('a batch with a graph load and a select that does not parse: a ROLLBACK, then each read alone', async () => {
    const { root, counter } = await setup()
    const em = root.fork()
    counter.reset()
    const [authors, bad] = await Promise.all([
      em.find('author', { name: 'Ada' }, { with: { books: { reviews: true } } }),
      em.select({ text: 'selec 1', params: [] }).catch((e: unknown) => e),
    ])
    expect(isPipeflushError(bad, 'STATEMENT_FAILED')).toBe(true)
    expect(names(authors[0]!['books'])).toEqual(['Letters', 'Notes'])
    // The batch, its ROLLBACK (postgres.js: one simple-protocol message; pg pipelines it, each select
    // ending in a Sync, the COMMIT too), then the graph load and the select.
    expect(counter.read().roundTrips).toBe(driver === 'pg' ? 3 : 4)
    expect(await em.select({ text: 'select 1 as n', params: [] })).toEqual([{ n: 1 }]) // the connection is idle
  })

  // Text a statement parses as it runs fails in the parser too, but after the snapshot's BEGIN ran:
  // that transaction is rolled back before the connection goes back (the next reads use it).
  test('a graph load failing on text its function parses as it runs: the connection comes back idle', async () => {
    const { root } = await setup()
    const failed = await root
      .fork()
      .loadRows(
        'author',
        { text: 'select * from author where unparsable()', params: [] },
        { with: { books: true } },
      )
      .catch((e: unknown) => e)
    expect(isPipeflushError(failed, 'STATEMENT_FAILED')).toBe(true)
    const [ada] = await root.fork().find('author', { name: 'Ada' }, { with: { books: true } })
    expect(names(ada!['books'])).toEqual(['Letters', 'Notes'])
  })

  // A cast to regtype parses the type name as the statement runs: a syntax error with a position in
  // the statement, as a select that does not parse has, raised after the snapshot's BEGIN ran.
  test('a graph load failing on a syntax error raised as it runs: the connection comes back idle', async () => {
    const { root } = await setup()
    const failed = await root
      .fork()
      .loadRows(
        'author',
        { text: "select * from author where 'int4 (('::text::regtype is not null", params: [] },
        { with: { books: true } },
      )
      .catch((e: unknown) => e)
    expect(isPipeflushError(failed, 'STATEMENT_FAILED'), String(failed)).toBe(true)
    const [ada] = await root.fork().find('author', { name: 'Ada' }, { with: { books: true } })
    expect(names(ada!['books'])).toEqual(['Letters', 'Notes'])
  })

  test('reads started in one tick go in one round trip: loads of a table by key gathered, finds, a view', async () => {
    const { root, counter } = await setup()
    const em = root.fork()
    const sockets = counter.read().connections
    counter.reset()
    const [ada, grace, books, priced, missing] = await Promise.all([
      em.load('author', 1),
      em.load('author', '2'),
      em.find('book', { author_id: 1 }),
      em.find('priced'),
      em.load('author', 99).catch((e: unknown) => e),
    ])
    expect(counter.read()).toMatchObject({ roundTrips: 1, connections: sockets }) // on the one open connection
    expect([ada!['name'], grace!['name']]).toEqual(['Ada', 'Grace'])
    expect(names(books)).toEqual(['Letters', 'Notes'])
    expect((priced as Entity[]).map((p) => p['price'])).toEqual(['12.50', '30.00'])
    expect(isPipeflushError(missing, 'NOT_FOUND')).toBe(true)
    // Managed: a load sends nothing, a find gives the same objects.
    counter.reset()
    expect(await em.load('author', 1)).toBe(ada)
    expect(counter.read().roundTrips).toBe(0)
    const [again] = await em.find('author', { name: 'Ada' })
    expect(again).toBe(ada)
  })

  test('a graph load is one round trip whatever its depth; relations navigate to the loaded entities', async () => {
    const { root, counter } = await setup()
    const em = root.fork()
    counter.reset()
    const ada = await em.load('author', 1, {
      with: { books: { reviews: true, tags: true, publisher: true } },
    })
    expect(counter.read().roundTrips).toBe(1)
    const books = ada['books'] as Entity[]
    expect(names(books)).toEqual(['Letters', 'Notes'])
    const notes = books.find((b) => b['title'] === 'Notes')!
    const letters = books.find((b) => b['title'] === 'Letters')!
    expect((notes['reviews'] as Entity[]).map((r) => r['stars']).sort()).toEqual([4, 5])
    expect(names(notes['tags'])).toEqual(['history', 'math'])
    expect((notes['publisher'] as Entity)['name']).toBe('Penguin')
    expect(letters['publisher']).toBeNull()
    expect(letters['reviews']).toEqual([])
    expect(notes['author']).toBe(ada) // many-to-one: the managed entity
    expect(notes['meta']).toEqual({ pages: 42 }) // decoded as find decodes
    // The same objects a find gives; link rows are entities too.
    const [sameNotes] = await em.find('book', { title: 'Notes' })
    expect(sameNotes).toBe(notes)
    expect(await em.load('book_tag', { book_id: 1, tag_id: 1 })).toBeDefined()
  })

  test("the link rows of a many-to-many beside the link table's one-to-many are selected once, and both navigate", async () => {
    const c = db.client(driver, { max: 1 })
    const selects: string[][] = []
    const logger = {
      debug(fields: object, message?: string) {
        if (message === 'pipeflush: reads')
          selects.push((fields as { statements: { table: string }[] }).statements.map((s) => s.table))
      },
    }
    const root = await EntityManager.connect(c.client, { logger })
    await c.query('select 1')
    const em = root.fork()
    c.counter.reset()
    const ada = await em.load('author', 1, { with: { books: { book_tags: true, tags: true } } })
    expect(c.counter.read().roundTrips).toBe(1)
    expect(selects).toEqual([['author', 'book', 'book_tag', 'tag']])
    const notes = (ada['books'] as Entity[]).find((b) => b['title'] === 'Notes')!
    expect(names(notes['tags'])).toEqual(['history', 'math'])
    const links = notes['book_tags'] as Entity[]
    expect(links.map((l) => Number(l['tag_id'])).sort()).toEqual([1, 2])
    expect(await em.load('book_tag', { book_id: 1, tag_id: 2 })).toBe(
      links.find((l) => Number(l['tag_id']) === 2),
    )
  })

  test('an entity already managed keeps its pending changes; new entities show in relations', async () => {
    const { root } = await setup()
    const em = root.fork()
    const notes = await em.load('book', 1)
    notes['title'] = 'Notes, revised'
    const ada = await em.load('author', 1, { with: { books: true } })
    expect(names(ada['books'])).toEqual(['Letters', 'Notes, revised'])
    const draft = em.create('book', { author_id: ada, title: 'Draft' })
    expect(names(ada['books'])).toContain('Draft')
    expect(draft['author']).toBe(ada)
    const newcomer = em.create('author', { name: 'Newcomer' })
    expect(newcomer['books']).toEqual([]) // nothing stored: nothing to load
    expect(em.pending).toMatchObject({ inserts: 2, updates: 1 })
  })

  test('an entity this unit of work inserted: its relations navigate before and after the flush, read or not, never a query', async () => {
    const { root, counter } = await setup()
    const em = root.fork()
    const author = em.create('author', { name: 'Fresh' })
    const book = em.create('book', { author_id: author, title: 'First' })
    em.create('review', { book_id: book, stars: 5 })
    // One relation read while new, the others first read after the flush; two of one entity while new.
    expect(names(author['books'])).toEqual(['First'])
    const fresh = em.create('author', { name: 'Fresh' })
    expect([fresh['books'], fresh['books']]).toEqual([[], []])
    const draft = em.create('book', { author_id: fresh, title: 'Second' })
    expect([draft['reviews'], draft['tags']]).toEqual([[], []])
    em.remove(draft)
    em.remove(fresh)
    try {
      await em.flush()
      counter.reset()
      expect(names(author['books'])).toEqual(['First'])
      expect((book['reviews'] as Entity[]).map((r) => r['stars'])).toEqual([5])
      expect(book['tags']).toEqual([]) // a many-to-many through book_tag
      em.create('book', { author_id: author, title: 'Second' })
      expect(names(author['books'])).toEqual(['First', 'Second'])
      expect(counter.read().roundTrips).toBe(0)
      // A row loaded, not inserted here, still needs a load.
      const ada = await em.load('author', 1)
      expect(() => ada['books']).toThrow(expect.objectContaining({ code: 'NOT_LOADED' }))
    } finally {
      await db.sql.unsafe(
        `delete from review where book_id in (select id from book where title in ('First', 'Second')); delete from book where title in ('First', 'Second'); delete from author where name = 'Fresh'`,
      )
    }
  })

  test('relations read before, during and after changes and a flush follow every change at once', async () => {
    const { root } = await setup()
    const em = root.fork()
    const [ada, grace] = await Promise.all([
      em.load('author', 1, { with: { books: true } }),
      em.load('author', 2, { with: { books: true } }),
    ])
    expect([names(ada['books']), names(grace['books'])]).toEqual([['Letters', 'Notes'], ['Compilers']])
    const letters = (ada['books'] as Entity[]).find((b) => b['title'] === 'Letters')!
    letters['author_id'] = grace // moved by an entity
    const draft = em.create('book', { author_id: ada, title: 'Draft' })
    const sketch = em.create('book', { author_id: 2, title: 'Sketch' }) // by key, a number for a bigint
    expect([names(ada['books']), names(grace['books'])]).toEqual([
      ['Draft', 'Notes'],
      ['Compilers', 'Letters', 'Sketch'],
    ])
    em.remove(sketch)
    expect(names(grace['books'])).toEqual(['Compilers', 'Letters'])
    try {
      await em.flush() // ids drawn and given, statuses and snapshots settled: read again at once
      expect([names(ada['books']), names(grace['books'])]).toEqual([
        ['Draft', 'Notes'],
        ['Compilers', 'Letters'],
      ])
      expect(draft['id']).toEqual(expect.anything())
      letters['author_id'] = ada['id'] // back, by its key
      expect(names(ada['books'])).toEqual(['Draft', 'Letters', 'Notes'])
      expect(names(grace['books'])).toEqual(['Compilers'])
    } finally {
      await db.sql.unsafe(
        `update book set author_id = 1 where title = 'Letters'; delete from book where title = 'Draft'`,
      )
    }
  })

  test('populate loads relations of entities in one round trip; find with "with" too', async () => {
    const { root, counter } = await setup()
    const em = root.fork()
    const books = await em.find('book', {})
    counter.reset()
    await em.populate(books, { reviews: true, author: true })
    expect(counter.read().roundTrips).toBe(1)
    expect(books.map((b) => (b['reviews'] as Entity[]).length)).toEqual([2, 0, 1])
    counter.reset()
    const [grace] = await em.find('author', { name: 'Grace' }, { with: { books: { tags: true } } })
    expect(counter.read().roundTrips).toBe(1)
    expect(names((grace!['books'] as Entity[])[0]!['tags'])).toEqual(['code'])
  })

  test('an unloaded relation is NOT_LOADED, never a query; an unknown one UNKNOWN_RELATION before sending', async () => {
    const { root, counter } = await setup()
    const em = root.fork()
    const ada = await em.load('author', 1)
    const [notes] = await em.find('book', { title: 'Notes' })
    counter.reset()
    expect(() => ada['books']).toThrow(expect.objectContaining({ code: 'NOT_LOADED' }))
    expect(() => notes!['tags']).toThrow(expect.objectContaining({ code: 'NOT_LOADED' }))
    expect(notes!['author']).toBe(ada) // a many-to-one to a managed entity needs no load
    expect(() => notes!['publisher']).toThrow(expect.objectContaining({ code: 'NOT_LOADED' }))
    await expect(em.load('author', 1, { with: { novels: true } })).rejects.toMatchObject({
      code: 'UNKNOWN_RELATION',
    })
    await expect(em.find('book', {}, { with: { reviews: 'yes' } as never })).rejects.toMatchObject({
      code: 'INVALID_VALUE',
    })
    expect(counter.read().roundTrips).toBe(0)
  })

  test('a read the server refuses fails alone; the others of its batch get their rows', async () => {
    const { root } = await setup()
    const em = root.fork()
    const [broken, ada, books] = await Promise.allSettled([
      em.find('broken'),
      em.load('author', 1),
      em.find('book', { author_id: 2 }),
    ])
    expect(broken).toMatchObject({
      status: 'rejected',
      reason: { code: 'STATEMENT_FAILED', sqlState: '22012' },
    })
    expect(ada).toMatchObject({ status: 'fulfilled', value: { name: 'Ada' } })
    expect(books.status === 'fulfilled' && names(books.value)).toEqual(['Compilers'])
  })
})
