import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { counted } from './fixtures/counted.ts'

// Get-or-create without a read: an upsert returns its entity, and rows created or changed in the same
// flush reference it; the flush looks its key up by the conflict values in the statement that writes
// the reference, so the whole flush is one round trip whether the upserted rows existed or not.
const db = useTestDatabase()

function schemaOf(driver: DriverName): string {
  return `ups_${driver.replace(/[^a-z]/g, '')}`
}

function ddl(schema: string): string {
  return `
create schema "${schema}";
set search_path = "${schema}";
create table tag (id bigserial primary key, name text not null unique, color text,
  created_at timestamptz not null default now());
create table book (id bigserial primary key, title text not null check (title <> 'boom'),
  main_tag_id bigint references tag);
create table book_tag (book_id bigint not null references book, tag_id bigint not null references tag,
  added_at timestamptz not null default now(), note text, primary key (book_id, tag_id));
create table edition (id bigserial primary key, publisher text not null, year int, label text,
  unique (publisher, year));
create table printing (id bigserial primary key, edition_id bigint not null references edition,
  copies int not null);
create table tag_note (id bigserial primary key, tag_id bigint not null references tag, lang text not null,
  body text, unique (tag_id, lang));
create table note_mark (id bigserial primary key, tag_note_id bigint not null references tag_note);
create table shelf (id serial primary key, name text not null);
create table shelf_profile (shelf_id int primary key references shelf, bio text);
create table profile_mark (id bigserial primary key, shelf_profile_id int not null references shelf_profile);
insert into shelf (name) values ('kept');
create table alias (id bigserial primary key, label text not null unique, tag_id bigint references tag);
create table label_tag (id bigserial primary key, name text not null unique, color text);
create function label_tag_lower() returns trigger language plpgsql as $$
  begin new.name := lower(new.name); return new; end $$;
create trigger label_tag_lower before insert or update on label_tag for each row execute function label_tag_lower();
create table labelled (id bigserial primary key, label_tag_id bigint references label_tag);
create table price_point (id bigserial primary key, amount numeric not null unique, note text);
insert into label_tag (name) values ('news');
insert into price_point (amount) values (1.50);
insert into tag (name, color) values ('old-a', 'red'), ('old-b', null);
insert into edition (publisher, year, label) values ('Penguin', 2020, 'first');
reset search_path;
`
}

beforeAll(async () => {
  for (const driver of TEST_DRIVERS) await db.sql.unsafe(ddl(schemaOf(driver)))
})

async function setup(driver: DriverName) {
  const schema = schemaOf(driver)
  const c = db.client(driver, {
    max: 1,
    postgresJs: { connection: { search_path: schema } },
    pg: { options: `-c search_path=${schema}` },
  })
  const root = await EntityManager.connect(c.client, { idBlockSize: 100 })
  // A first flush of every table: the id pool is filled, the statement shapes known.
  const warm = root.fork()
  const t = warm.upsert('tag', { name: 'warm' }, { conflict: ['name'], update: [] })
  const b = warm.create('book', { title: 'warm' })
  warm.create('book_tag', { book_id: b, tag_id: t })
  const e = warm.upsert('edition', { publisher: 'warm', year: 1 }, { conflict: ['publisher', 'year'] })
  warm.create('printing', { edition_id: e, copies: 1 })
  await warm.flush()
  return { ...c, root, schema }
}

async function idOfTag(schema: string, name: string): Promise<string> {
  const rows = await db.sql.unsafe(`select id::text from "${schema}".tag where name = $1`, [name])
  return rows[0]!['id'] as string
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('tags got or created and a book linking them: one round trip, the right rows, keys and server values read back', async () => {
    const { root, counter, schema } = await setup(driver)
    const em = root.fork()
    const names = ['old-a', 'old-b', `new-${driver}`]
    const tags = names.map((name) => em.upsert('tag', { name }, { conflict: ['name'], update: [] }))
    const book = em.create('book', { title: 'Dune' })
    const links = tags.map((tag) => em.create('book_tag', { book_id: book, tag_id: tag }))
    const report = await counted(counter, () => em.flush())
    expect(report).toMatchObject({ roundTrips: 1, idFetch: false, upserted: 3, inserted: 4 })
    const ids = await Promise.all(names.map((name) => idOfTag(schema, name)))
    expect(tags.map((t) => String(t['id']))).toEqual(ids)
    expect(tags.map((t) => em.stateOf(t))).toEqual(['managed', 'managed', 'managed'])
    expect(tags[0]!['color']).toBe('red') // the row as stored, not as upserted
    expect(tags[2]!['created_at']).toBeInstanceOf(Date)
    expect(links.map((l) => String(l['tag_id']))).toEqual(ids)
    const stored = await db.sql.unsafe(
      `select t.name from "${schema}".book_tag bt join "${schema}".tag t on t.id = bt.tag_id where bt.book_id = $1 order by t.name`,
      [String(book['id'])],
    )
    expect(stored.map((r) => r['name'])).toEqual([...names].sort())
    expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
    expect((await em.flush()).statements).toBe(0)
    // Managed now: the upserted entity is the one a load finds.
    expect(await em.load('tag', tags[0]!['id'])).toBe(tags[0])
  })

  test('a link row behind an upserted entity holds its server-filled values (a DEFAULT, a nullable column left out) as one behind a created entity does', async () => {
    const { root, counter } = await setup(driver)
    const em = root.fork()
    const book = em.create('book', { title: 'Links' })
    const existing = em.upsert('tag', { name: 'old-a' }, { conflict: ['name'], update: [] })
    const fresh = em.upsert('tag', { name: `fresh-${driver}` }, { conflict: ['name'], update: [] })
    const created = em.create('tag', { name: `created-${driver}` })
    const links = [existing, fresh, created].map((tag) =>
      em.create('book_tag', { book_id: book, tag_id: tag }),
    )
    const report = await counted(counter, () => em.flush())
    expect(report).toMatchObject({ roundTrips: 1, upserted: 2, inserted: 5 })
    for (const link of links) {
      expect(link['added_at']).toBeInstanceOf(Date)
      expect(link['note']).toBeNull()
      expect(em.stateOf(link)).toBe('managed')
    }
    // Tracked with those values: a load finds the same entity, complete, without a query.
    counter.reset()
    const [found] = await em.find('book_tag', { book_id: book['id'], tag_id: existing['id'] })
    expect(found).toBe(links[0])
    const again = await em.load('book_tag', { book_id: book['id'], tag_id: fresh['id'] })
    expect(again).toBe(links[1])
    expect(again['added_at']).toBeInstanceOf(Date)
    // As stored: another unit of work reads the same values.
    const other = root.fork()
    const stored = await other.load('book_tag', { book_id: book['id'], tag_id: existing['id'] })
    expect((stored['added_at'] as Date).getTime()).toBe((links[0]!['added_at'] as Date).getTime())
    expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
  })

  // A conflict key may hold a new entity (created, or upserted): its key is known in the flush only.
  test('an upsert whose conflict key holds a created or an upserted entity: one round trip, inserted then updated, the last of one key winning', async () => {
    const { root, counter, schema } = await setup(driver)
    const notes = async (tag: string) =>
      db.sql.unsafe(
        `select n.lang, n.body from "${schema}".tag_note n join "${schema}".tag t on t.id = n.tag_id where t.name = $1 order by n.lang`,
        [tag],
      )
    const name = `noted-${driver}`
    const em = root.fork()
    const created = em.create('tag', { name })
    const upserted = em.upsert('tag', { name: 'old-b' }, { conflict: ['name'], update: [] })
    const spec = { conflict: ['tag_id', 'lang'], update: ['body'] }
    em.upsert('tag_note', { tag_id: created, lang: 'en', body: 'first' }, spec)
    const kept = em.upsert('tag_note', { tag_id: created, lang: 'en', body: 'last' }, spec)
    const other = em.upsert('tag_note', { tag_id: upserted, lang: 'fr', body: 'un' }, spec)
    expect(em.pending).toMatchObject({ inserts: 1, upserts: 3 })
    const report = await counted(counter, () => em.flush())
    expect(report).toMatchObject({ roundTrips: 1, upserted: 3, inserted: 1 })
    expect(await notes(name)).toEqual([{ lang: 'en', body: 'last' }])
    expect(await notes('old-b')).toEqual([{ lang: 'fr', body: 'un' }])
    expect([String(kept['tag_id']), String(other['tag_id'])]).toEqual([
      String(created['id']),
      String(upserted['id']),
    ])
    // Upserted again from another unit, the parent upserted too: the row is updated, not duplicated.
    const again = root.fork()
    const parent = again.upsert('tag', { name }, { conflict: ['name'], update: [] })
    const note = again.upsert('tag_note', { tag_id: parent, lang: 'en', body: 'again' }, spec)
    expect((await counted(counter, () => again.flush())).roundTrips).toBe(1)
    expect(await notes(name)).toEqual([{ lang: 'en', body: 'again' }])
    expect(note['id']).toBe(kept['id'])
  })

  test('upserts whose conflict keys hold two upserts of one parent key are one row (the last winning)', async () => {
    const { root, counter, schema } = await setup(driver)
    const em = root.fork()
    const name = `twin-${driver}`
    const first = em.upsert('tag', { name }, { conflict: ['name'], update: [] })
    const second = em.upsert('tag', { name }, { conflict: ['name'], update: [] })
    const spec = { conflict: ['tag_id', 'lang'], update: ['body'] }
    em.upsert('tag_note', { tag_id: first, lang: 'it', body: 'uno' }, spec)
    em.upsert('tag_note', { tag_id: second, lang: 'it', body: 'due' }, spec)
    expect(em.pending.upserts).toBe(2)
    expect((await counted(counter, () => em.flush())).roundTrips).toBe(1)
    const rows = await db.sql.unsafe(
      `select n.body from "${schema}".tag_note n join "${schema}".tag t on t.id = n.tag_id where t.name = $1`,
      [name],
    )
    expect(rows.map((r) => r['body'])).toEqual(['due'])
  })

  // Its statement takes the referenced key by a lookup: it must stay an upsert (it was sent as a
  // plain insert, which failed on the existing row).
  test('an upsert referencing an upserted entity (not by its conflict key): an existing row is updated', async () => {
    const { root, counter, schema } = await setup(driver)
    const label = `alias-${driver}`
    for (const [tagName, expected] of [
      ['old-a', 1],
      ['old-b', 1],
    ] as const) {
      const em = root.fork()
      const tag = em.upsert('tag', { name: tagName }, { conflict: ['name'], update: [] })
      const alias = em.upsert('alias', { label, tag_id: tag }, { conflict: ['label'], update: ['tag_id'] })
      expect((await counted(counter, () => em.flush())).roundTrips).toBe(1)
      const rows = await db.sql.unsafe(
        `select a.id::text as id, t.name from "${schema}".alias a join "${schema}".tag t on t.id = a.tag_id where a.label = $1`,
        [label],
      )
      expect(rows.map((r) => r['name'])).toEqual([tagName])
      expect(rows).toHaveLength(expected)
      expect([String(alias['id']), String(alias['tag_id'])]).toEqual([
        rows[0]!['id'],
        await idOfTag(schema, tagName),
      ])
    }
  })

  // Its lookup would need the parent's key, which the same flush gives: refused, naming why.
  test('a row referencing an upsert whose conflict key holds a new entity: refused before sending; flushed in two, it works', async () => {
    const { root, counter, schema } = await setup(driver)
    const em = root.fork()
    const tag = em.upsert('tag', { name: `marked-${driver}` }, { conflict: ['name'], update: [] })
    const note = em.upsert(
      'tag_note',
      { tag_id: tag, lang: 'de', body: 'eins' },
      { conflict: ['tag_id', 'lang'] },
    )
    const mark = em.create('note_mark', { tag_note_id: note })
    counter.reset()
    const refused = await em.flush().catch((e: unknown) => e)
    expect(isPipeflushError(refused, 'INVALID_VALUE') && refused.message).toMatch(
      /"tag_id" holds a new entity whose key this flush gives/,
    )
    expect(counter.read().bytesOut).toBe(0)
    em.remove(mark)
    await em.flush()
    const later = em.create('note_mark', { tag_note_id: note })
    expect((await counted(counter, () => em.flush())).roundTrips).toBe(1)
    const [row] = await db.sql.unsafe(
      `select tag_note_id::text as id from "${schema}".note_mark where id = $1`,
      [String(later['id'])],
    )
    expect(row?.['id']).toBe(String(note['id']))
  })

  test('a row referencing an upsert keyed by a loaded entity (a one-to-one keyed by its parent): one round trip', async () => {
    const { root, counter, schema } = await setup(driver)
    const em = root.fork()
    const shelf = await em.load('shelf', 1)
    const profile = em.upsert('shelf_profile', { shelf_id: shelf, bio: driver }, { conflict: ['shelf_id'] })
    const mark = em.create('profile_mark', { shelf_profile_id: profile })
    expect((await counted(counter, () => em.flush())).roundTrips).toBe(1)
    const [row] = await db.sql.unsafe(
      `select shelf_profile_id as id from "${schema}".profile_mark where id = $1`,
      [String(mark['id'])],
    )
    expect(row?.['id']).toBe(1)
  })

  test('an earlier upsert of one key, referenced, is looked up as the last one (which wins)', async () => {
    const { root, counter, schema } = await setup(driver)
    const em = root.fork()
    const name = `twice-${driver}`
    const first = em.upsert('tag', { name, color: 'first' }, { conflict: ['name'] })
    const last = em.upsert('tag', { name, color: 'last' }, { conflict: ['name'] })
    const link = em.create('book_tag', { book_id: em.create('book', { title: 'Twice' }), tag_id: first })
    const report = await counted(counter, () => em.flush())
    expect(report).toMatchObject({ roundTrips: 1, upserted: 1 })
    const id = await idOfTag(schema, name)
    expect([String(first['id']), String(last['id']), String(link['tag_id'])]).toEqual([id, id, id])
    expect([em.stateOf(first), em.stateOf(last), last['color']]).toEqual(['detached', 'managed', 'last'])
    expect(em.pending.updates).toBe(0)
  })

  test('with serverValues off for its table, an upsert returns nothing and its entity is detached; a reference to it is refused before sending', async () => {
    const { client, counter, schema } = await setup(driver)
    const root = await EntityManager.connect(client, { serverValues: { tag: false } })
    const em = root.fork()
    const name = `quiet-${driver}`
    const tag = em.upsert('tag', { name }, { conflict: ['name'], update: [] })
    expect(em.plan().waves.flat()[0]?.sql).toMatch(/do nothing$/)
    await em.flush()
    expect([em.stateOf(tag), tag['id']]).toEqual(['detached', undefined])
    expect(await idOfTag(schema, name)).toBeDefined()
    const other = root.fork()
    const again = other.upsert('tag', { name }, { conflict: ['name'], update: [] })
    other.create('book_tag', { book_id: other.create('book', { title: 'Quiet' }), tag_id: again })
    counter.reset()
    await expect(other.flush()).rejects.toMatchObject({
      code: 'INVALID_VALUE',
      message: /serverValues is off/,
    })
    expect(counter.read().roundTrips).toBe(0)
  })

  test('a tag list replaced: links removed and created again to tags got by upserts, kept ones included (delete first), one round trip', async () => {
    const { root, counter, schema } = await setup(driver)
    const seed = root.fork()
    const book = seed.create('book', { title: `Relinked ${driver}` })
    for (const name of ['old-a', 'old-b'])
      seed.create('book_tag', {
        book_id: book,
        tag_id: seed.upsert('tag', { name }, { conflict: ['name'], update: [] }),
      })
    await seed.flush()
    // The request: the list is now old-b and a new tag; every old link removed, each new one created.
    const em = root.fork()
    for (const link of await em.find('book_tag', { book_id: book['id'] })) em.remove(link)
    const names = ['old-b', `relinked-${driver}`]
    for (const name of names)
      em.create('book_tag', {
        book_id: book['id'],
        tag_id: em.upsert('tag', { name }, { conflict: ['name'], update: [] }),
      })
    const report = await counted(counter, () => em.flush())
    expect(report).toMatchObject({ roundTrips: 1, deleted: 2, inserted: 2, upserted: 2 })
    const stored = await db.sql.unsafe(
      `select t.name from "${schema}".book_tag bt join "${schema}".tag t on t.id = bt.tag_id where bt.book_id = $1 order by t.name`,
      [String(book['id'])],
    )
    expect(stored.map((r) => r['name'])).toEqual([...names].sort())
    // A unique constraint holding the reference: a note freed by a delete, another by an update.
    const notes = root.fork()
    const tagB = await notes.load('tag', await idOfTag(schema, 'old-b'))
    const gone = notes.create('tag_note', { tag_id: tagB, lang: `en-relink-${driver}` })
    const moved = notes.create('tag_note', { tag_id: tagB, lang: `de-relink-${driver}` })
    await notes.flush()
    notes.remove(gone)
    moved['lang'] = `fr-relink-${driver}`
    for (const lang of [`en-relink-${driver}`, `de-relink-${driver}`])
      notes.create('tag_note', {
        tag_id: notes.upsert('tag', { name: 'old-b' }, { conflict: ['name'], update: [] }),
        lang,
        body: 'again',
      })
    await notes.flush()
    const langs = await db.sql.unsafe(
      `select lang, body from "${schema}".tag_note where tag_id = $1 and lang like '%-relink-%' order by lang`,
      [String(tagB['id'])],
    )
    expect(langs.map((r) => `${r['lang']}:${r['body'] ?? ''}`)).toEqual(
      [`de-relink-${driver}:again`, `en-relink-${driver}:again`, `fr-relink-${driver}:`].sort(),
    )
  })

  test('a composite conflict key; an existing row upserted with do-nothing keeps its key and values', async () => {
    const { root, counter, schema } = await setup(driver)
    const em = root.fork()
    const spec = { conflict: ['publisher', 'year'], update: [] }
    const old = em.upsert('edition', { publisher: 'Penguin', year: 2020, label: 'ignored' }, spec)
    const fresh = em.upsert('edition', { publisher: `Faber-${driver}`, year: 2021, label: 'new' }, spec)
    const p1 = em.create('printing', { edition_id: old, copies: 10 })
    const p2 = em.create('printing', { edition_id: fresh, copies: 20 })
    const report = await counted(counter, () => em.flush())
    expect(report.roundTrips).toBe(1)
    const rows = await db.sql.unsafe(
      `select e.id::text, e.publisher, e.label, p.copies from "${schema}".printing p join "${schema}".edition e on e.id = p.edition_id where p.id in ($1, $2) order by p.copies`,
      [String(p1['id']), String(p2['id'])],
    )
    expect(rows.map((r) => [r['publisher'], r['label'], r['copies']])).toEqual([
      ['Penguin', 'first', 10],
      [`Faber-${driver}`, 'new', 20],
    ])
    expect([String(old['id']), String(fresh['id'])]).toEqual(rows.map((r) => r['id']))
    expect(old['label']).toBe('first')
  })

  test('a changed row may be assigned an upserted entity: its update looks the key up too', async () => {
    const { root, counter, schema } = await setup(driver)
    const em = root.fork()
    const book = em.create('book', { title: 'Emma' })
    await em.flush()
    const tag = em.upsert('tag', { name: 'old-b' }, { conflict: ['name'], update: [] })
    book['main_tag_id'] = tag
    const report = await counted(counter, () => em.flush())
    expect(report).toMatchObject({ roundTrips: 1, updated: 1, upserted: 1 })
    expect(String(book['main_tag_id'])).toBe(await idOfTag(schema, 'old-b'))
    expect(em.pending.updates).toBe(0)
  })

  test('a failed flush commits nothing and leaves the unit of work as it was; the retry succeeds', async () => {
    const { root, counter, schema } = await setup(driver)
    const em = root.fork()
    const name = `retry-${driver}`
    const tag = em.upsert('tag', { name }, { conflict: ['name'], update: [] })
    const book = em.create('book', { title: 'boom' }) // the check fails, after the upsert
    em.create('book_tag', { book_id: book, tag_id: tag })
    await expect(em.flush()).rejects.toMatchObject({ name: 'PipeflushError' })
    expect(await db.sql.unsafe(`select 1 from "${schema}".tag where name = $1`, [name])).toHaveLength(0)
    expect(em.pending).toEqual({ inserts: 2, updates: 0, deletes: 0, upserts: 1 })
    expect(em.stateOf(tag)).toBe('new')
    book['title'] = 'fine'
    const report = await counted(counter, () => em.flush())
    expect(report.roundTrips).toBe(1)
    expect(String(tag['id'])).toBe(await idOfTag(schema, name))
    expect(em.stateOf(tag)).toBe('managed')
  })

  test("a row keyed by an upserted entity, refused as a duplicate: the error's key leaves that part unknown (null), not the id the flush proposed", async () => {
    const { root, schema } = await setup(driver)
    const seed = root.fork()
    const name = `linked-${driver}`
    const book = seed.create('book', { title: 'linked' })
    seed.create('book_tag', { book_id: book, tag_id: seed.upsert('tag', { name }, { conflict: ['name'] }) })
    await seed.flush()
    const stored = await idOfTag(schema, name)
    const em = root.fork()
    const tag = em.upsert('tag', { name }, { conflict: ['name'], update: [] })
    em.create('book_tag', { book_id: book['id'], tag_id: tag })
    const error = await em.flush().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toMatchObject({
      code: 'CONSTRAINT_VIOLATION',
      table: 'book_tag',
      keys: [[String(book['id']), null]],
    })
    // The server found the stored tag by its name: its detail names that id, not the proposed one.
    expect(isPipeflushError(error) && String(error.detail)).toContain(`(${String(book['id'])}, ${stored})`)
  })

  // The server may store other values than an upsert gave (a trigger lowercasing a name): a row
  // referencing the upsert finds it by the values given.
  test('a reference to an upsert whose row the server stored with other conflict values: CONSTRAINT_VIOLATION, nothing committed (it was written NULL)', async () => {
    const { root, schema } = await setup(driver)
    const em = root.fork()
    const label = em.upsert('label_tag', { name: `Sport-${driver}` }, { conflict: ['name'], update: [] })
    em.create('labelled', { label_tag_id: label })
    const pending = em.pending
    const error = await em.flush().catch((e: unknown) => e)
    expect(isPipeflushError(error, 'CONSTRAINT_VIOLATION')).toBe(true)
    expect(error).toMatchObject({ table: 'labelled', column: 'label_tag_id' })
    expect(String((error as Error).message)).toMatch(/references a label_tag row upserted by this flush/)
    const [row] = await db.sql.unsafe<{ tags: number; rows: number }[]>(
      `select (select count(*)::int from "${schema}".label_tag where name = $1) as tags,
        (select count(*)::int from "${schema}".labelled) as rows`,
      [`sport-${driver}`],
    )
    expect(row).toEqual({ tags: 0, rows: 0 })
    expect(em.pending).toEqual(pending)
  })

  test('an upsert the server stored with other conflict values (a trigger) is matched to what it returned: its entity managed, holding the stored row', async () => {
    const { root, schema } = await setup(driver)
    const em = root.fork()
    const label = em.upsert(
      'label_tag',
      { name: 'News', color: driver },
      { conflict: ['name'], update: ['color'] },
    )
    const fresh = em.upsert(
      'label_tag',
      { name: `Fresh-${driver}`, color: driver },
      { conflict: ['name'], update: ['color'] },
    )
    await em.flush()
    const stored = await db.sql.unsafe<{ id: string; name: string }[]>(
      `select id::text, name from "${schema}".label_tag where name in ('news', $1) order by name`,
      [`fresh-${driver}`],
    )
    expect([em.stateOf(label), em.stateOf(fresh)]).toEqual(['managed', 'managed'])
    expect([String(fresh['id']), fresh['name'], String(label['id']), label['name']]).toEqual([
      stored[0]!.id,
      stored[0]!.name,
      stored[1]!.id,
      'news',
    ])
  })

  test('an upsert updating nothing leaves the stored conflict value as it is (another text of an equal value is not written)', async () => {
    const { root, schema } = await setup(driver)
    const em = root.fork()
    const point = em.upsert('price_point', { amount: '1.5' }, { conflict: ['amount'], update: [] })
    await em.flush()
    const [row] = await db.sql.unsafe<{ id: string; amount: string }[]>(
      `select id::text, amount::text from "${schema}".price_point where amount = 1.5`,
    )
    expect(row!.amount).toBe('1.50')
    expect([em.stateOf(point), String(point['id'])]).toEqual(['managed', row!.id])
  })

  test('bad references fail before anything is sent', async () => {
    const { root, counter } = await setup(driver)
    const em = root.fork()
    const tag = em.upsert('tag', { name: 'x' }, { conflict: ['name'], update: [] })
    em.create('book_tag', { book_id: em.create('book', { title: 'a' }), tag_id: tag })
    tag['name'] = 'y'
    counter.reset()
    await expect(em.flush()).rejects.toMatchObject({
      code: 'INVALID_VALUE',
      table: 'book_tag',
      column: 'tag_id',
    })
    expect(() => em.plan()).toThrow(/changed after upsert/)
    const other = root.fork()
    const edition = other.upsert(
      'edition',
      { publisher: 'P', year: null },
      { conflict: ['publisher', 'year'] },
    )
    other.create('printing', { edition_id: edition, copies: 1 })
    await expect(other.flush()).rejects.toMatchObject({ code: 'INVALID_VALUE', message: /is null/ })
    expect(counter.read().roundTrips).toBe(0)
  })
})
