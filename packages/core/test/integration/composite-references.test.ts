import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// An entity given to a column of a composite foreign key stands for the column that key references
// at the column's place, as for a single-column key: a multi-tenant schema's (tenant_id, author_id)
// referencing author(tenant_id, id) takes the author for author_id. An entity of a table the
// column's keys do not reference is INVALID_VALUE before anything is sent: it was taken for a column
// with no foreign key, its own key written (and committed, when a row with that key existed).

const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table ck_author (id bigserial primary key, tenant_id int not null, name text not null, unique (tenant_id, id));
    create table ck_book (id bigserial primary key, tenant_id int not null, author_id bigint not null, title text not null,
      foreign key (tenant_id, author_id) references ck_author (tenant_id, id));
    create table ck_line (invoice_id int not null, line_no int not null, primary key (invoice_id, line_no));
    create table ck_note (id serial primary key, invoice_id int not null, line_no int not null, body text not null,
      foreign key (invoice_id, line_no) references ck_line);
    create table ck_track (id serial primary key, name text not null);
    create table ck_edition (author_id bigint not null references ck_author, n int not null, primary key (author_id, n));
    create table ck_edition_note (id serial primary key, author_id bigint not null, n int not null,
      foreign key (author_id, n) references ck_edition);
  `)
})

describe.each(TEST_DRIVERS)('%s: entities given to columns of composite foreign keys', (driver) => {
  async function connect() {
    const { client, counter } = db.client(driver, { max: 2 })
    return { root: await EntityManager.connect(client), counter }
  }

  test('a new author given to author_id of (tenant_id, author_id): its id, drawn by the flush, in one flush', async () => {
    const { root } = await connect()
    const em = root.fork()
    const ada = em.create('ck_author', { tenant_id: 7, name: `Ada-${driver}` })
    const book = em.create('ck_book', { tenant_id: 7, author_id: ada, title: 'Notes' })
    const report = await em.flush()
    expect(report.inserted).toBe(2)
    expect(book['author_id']).toBe(ada['id'])
    const [row] =
      await db.sql`select author_id::text as a from ck_book where id = ${String(book['id'])}::int8`
    expect(row?.['a']).toBe(String(ada['id']))
    // Found by the entity as well.
    const found = await em.find('ck_book', { author_id: ada })
    expect(found.map((b) => b['title'])).toEqual(['Notes'])
  })

  test('a line given to both columns of (invoice_id, line_no): each the line’s own column', async () => {
    const { root } = await connect()
    const em = root.fork()
    const invoice = driver === 'pg' ? 10 : 11
    const line = em.create('ck_line', { invoice_id: invoice, line_no: 3 })
    em.create('ck_note', { invoice_id: line, line_no: line, body: `both-${driver}` })
    await em.flush()
    const rows = await db.sql`select invoice_id, line_no from ck_note where body = ${`both-${driver}`}`
    expect(rows).toEqual([{ invoice_id: invoice, line_no: 3 }])
  })

  test('an author given to author_id of (author_id, n) references ck_edition, whose author_id references the author: its id', async () => {
    const { root, counter } = await connect()
    const em = root.fork()
    const ada = em.create('ck_author', { tenant_id: 1, name: `Ed-${driver}` })
    em.create('ck_edition', { author_id: ada, n: 1 })
    const note = em.create('ck_edition_note', { author_id: ada, n: 1 })
    await em.flush()
    expect(note['author_id']).toBe(ada['id'])
    // n references the edition's n, which references nothing: an author cannot stand for it.
    em.create('ck_edition_note', { author_id: ada, n: ada })
    counter.reset()
    const error = await em.flush().catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'INVALID_VALUE', table: 'ck_edition_note', column: 'n' })
    expect(counter.read().writes).toBe(0)
  })

  test('an entity of another table: INVALID_VALUE naming the referenced table, nothing sent, the unit fixable', async () => {
    const { root, counter } = await connect()
    const seed = root.fork()
    // A line whose invoice_id equals the track's id: the wrong reference would have committed.
    const track = seed.create('ck_track', { name: 'Intro' })
    await seed.flush()
    await db.sql`insert into ck_line values (${track['id'] as number}, 1) on conflict do nothing`
    const em = root.fork()
    const [stored] = await em.find('ck_track', { id: track['id'] })
    const note = em.create('ck_note', { invoice_id: stored, line_no: 1, body: `wrong-${driver}` })
    counter.reset()
    const error = await em.flush().catch((e: unknown) => e)
    expect(isPipeflushError(error, 'INVALID_VALUE')).toBe(true)
    expect(error).toMatchObject({ table: 'ck_note', column: 'invoice_id' })
    expect((error as Error).message).toBe(
      'ck_note.invoice_id references ck_line, not ck_track: a ck_track entity cannot stand for it.',
    )
    expect(counter.read().writes, 'nothing sent').toBe(0)
    const finding = await em.find('ck_note', { invoice_id: stored }).catch((e: unknown) => e)
    expect(isPipeflushError(finding, 'INVALID_VALUE')).toBe(true)
    note['invoice_id'] = track['id']
    expect((await em.flush()).inserted).toBe(1)
    const rows = await db.sql`select count(*)::int as n from ck_note where body = ${`wrong-${driver}`}`
    expect(rows[0]?.['n']).toBe(1)
  })
})
