import { EntityManager, isPipeflushError, type PipelineMode } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// An upsert and a new row referencing each other (a cycle through a nullable self-reference): the
// cycle is broken where a fix-up UPDATE may set the key later. Never at a column the upsert leaves
// alone on conflict (`update: []`, or a list without it): there the fix-up would change the row that
// was there, which the upsert was asked not to touch. Compared with the same statements sent one at a
// time in a transaction (the new row first, then `insert ... on conflict`). And a cycle through an
// upsert on another unique key than the primary key: a fix-up finds its row by the key drawn for it,
// which a row that was there does not have, so the cycle is broken on the new row's side.

const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']

beforeAll(async () => {
  await db.sql.unsafe(`
    create table node (code text primary key, label text, parent text references node);
    create table tag (id bigserial primary key, name text not null unique, featured_book_id bigint);
    create table book (id bigserial primary key, title text not null, tag_id bigint references tag);
    alter table tag add foreign key (featured_book_id) references book;
    insert into tag (name) values ('stored');
    create table pair_a (id bigserial primary key, code text not null unique, b_id bigint);
    create table pair_b (id bigserial primary key, code text not null unique, a_id bigint references pair_a);
    alter table pair_a add foreign key (b_id) references pair_b;`)
})

type Row = { code: string; label: string | null; parent: string | null }

async function rows(prefix: string): Promise<Row[]> {
  return db.sql<Row[]>`select code, label, parent from node where code like ${`${prefix}%`} order by code`
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  describe.each(modes)('%s', (mode) => {
    test.each([
      ['[]', [] as string[]],
      ["['label']", ['label']],
      ["['label', 'parent']", ['label', 'parent']],
    ])(
      'a new row and an existing row upserted with update %s, each referencing the other',
      async (name, update) => {
        const p = `${driver}-${mode}-${name}-`
        await db.sql`insert into node values (${`${p}root`}, 'stored', null)`
        const { client } = db.client(driver, { max: 2 })
        const root = await EntityManager.connect(client, { pipeline: mode })
        const em = root.fork()
        const stored = await em.load('node', `${p}root`)
        const child = em.create('node', { code: `${p}child`, label: 'new', parent: stored })
        em.upsert('node', { code: `${p}root`, label: 'given', parent: child }, { conflict: ['code'], update })
        await em.flush()
        const got = await rows(p)
        // The same statements, one at a time, on other keys.
        const q = `${p}plain-`
        await db.sql`insert into node values (${`${q}root`}, 'stored', null)`
        await db.sql.begin(async (sql) => {
          await sql`insert into node values (${`${q}child`}, 'new', ${`${q}root`})`
          const set = update.map((c) => `${c} = excluded.${c}`).join(', ')
          await sql.unsafe(
            `insert into node values ($1, 'given', $2) on conflict (code) do ${set ? `update set ${set}` : 'nothing'}`,
            [`${q}root`, `${q}child`],
          )
        })
        const plain = (await rows(q)).map((r) => ({
          code: r.code.replace(q, p),
          label: r.label,
          parent: r.parent?.replace(q, p) ?? null,
        }))
        expect(got).toEqual(plain)
        expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
      },
    )
  })

  // A cycle through an upsert whose conflict is another unique key: its existing row keeps its own id,
  // so a fix-up cannot find it by the one drawn; the cycle is broken on the new row's side.
  test.each(['stored', 'fresh'])(
    'a tag upserted by name (%s) and a new book referencing each other',
    async (name) => {
      const { client } = db.client(driver, { max: 2 })
      const root = await EntityManager.connect(client)
      const em = root.fork()
      const title = `${driver}-${name}`
      const tagName = name === 'stored' ? 'stored' : `fresh-${driver}`
      const tag = em.upsert('tag', { name: tagName }, { conflict: ['name'], update: ['featured_book_id'] })
      const book = em.create('book', { title, tag_id: tag })
      tag['featured_book_id'] = book
      await em.flush()
      const [row] = await db.sql<{ tag_id: string; featured: string }[]>`
      select b.tag_id::text, t.featured_book_id::text as featured from book b join tag t on t.id = b.tag_id where b.title = ${title}`
      expect(row).toEqual({ tag_id: String(tag['id']), featured: String(book['id']) })
    },
  )

  test('two upserts by other unique keys referencing each other: refused before anything is sent, saying why', async () => {
    const c = db.client(driver, { max: 2 })
    const root = await EntityManager.connect(c.client)
    const em = root.fork()
    const a = em.upsert('pair_a', { code: `a-${driver}` }, { conflict: ['code'], update: ['b_id'] })
    const b = em.upsert('pair_b', { code: `b-${driver}`, a_id: a }, { conflict: ['code'], update: ['a_id'] })
    a['b_id'] = b
    c.counter.reset()
    const e = await em.flush().catch((error: unknown) => error)
    expect(isPipeflushError(e, 'UNRESOLVABLE_CYCLE')).toBe(true)
    expect((e as Error).message).toContain('an upsert, whose row may exist')
    expect((e as Error).message).not.toContain('NOT NULL')
    expect(c.counter.read().roundTrips).toBe(0)
  })
})
