import { EntityManager, isPipeflushError, type PipelineMode } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// A flush's deletes go as late as the order lets them: after the inserts and updates that do not have
// to follow them, whatever wave those take (an update waits for the new row it references). A delete's
// ON DELETE action may touch rows those statements write: the delete of an author sets its books'
// author to NULL, which a book's CHECK allows once its status is updated; its cascade removes a
// chapter an update changes; SET DEFAULT needs the default row, created in the same flush. The same
// statements run one at a time in that order commit.

const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']

beforeAll(async () => {
  await db.sql.unsafe(`
    create table editor (id int primary key, name text);
    create table author (id int primary key, name text);
    create table book (id int primary key, author_id int references author on delete set null, status text not null,
      editor_id int references editor, check (author_id is not null or status = 'orphan'));
    create table volume (id int primary key, author_id int not null references author on delete cascade);
    create table chapter (id int primary key, volume_id int not null references volume on delete cascade,
      editor_id int references editor);
    create table node (id int primary key, is_root boolean not null,
      parent_id int references node on delete set null, check (parent_id is not null or is_root));
    create table owner (id int primary key);
    create table grp (id int primary key, owner_id int references owner);
    create table member (id int primary key, grp_id int not null default 0 references grp on delete set default);
  `)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  describe.each(modes)('%s', (mode) => {
    const base = (TEST_DRIVERS.indexOf(driver) * 3 + modes.indexOf(mode)) * 10 + 1

    async function unit() {
      const { client } = db.client(driver, { max: 2 })
      return (await EntityManager.connect(client, { pipeline: mode })).fork()
    }

    test('ON DELETE SET NULL under a CHECK the same flush satisfies by an update waiting for a new row', async () => {
      await db.sql.unsafe(
        `insert into author values (${base}, 'a'); insert into book values (${base}, ${base}, 'active', null)`,
      )
      const em = await unit()
      const [author, book] = await Promise.all([em.load('author', base), em.load('book', base)])
      book['status'] = 'orphan'
      book['editor_id'] = em.create('editor', { id: base, name: 'e' })
      em.remove(author)
      await em.flush()
      const [row] = await db.sql`select author_id, status, editor_id from book where id = ${base}`
      expect(row).toEqual({ author_id: null, status: 'orphan', editor_id: base })
    })

    test('ON DELETE CASCADE through a table the flush does not write, to a row an update changes', async () => {
      await db.sql.unsafe(`insert into author values (${base + 1}, 'a'); insert into volume values (${base}, ${base + 1});
        insert into chapter values (${base}, ${base}, null)`)
      const em = await unit()
      const [author, chapter] = await Promise.all([em.load('author', base + 1), em.load('chapter', base)])
      chapter['editor_id'] = em.create('editor', { id: base + 1, name: 'e' })
      em.remove(author)
      const report = await em.flush()
      expect([report.updated, report.deleted]).toEqual([1, 1])
      expect(await db.sql`select id from chapter where id = ${base}`).toEqual([])
    })

    // The server names the table its action wrote (book), not a statement of the message: the error
    // names the delete that ran the action, not the flush's update of book, which was not refused.
    test('a delete whose ON DELETE SET NULL the server refuses: the error names the delete, nothing committed', async () => {
      await db.sql.unsafe(
        `insert into author values (${base + 2}, 'a'); insert into book values (${base + 2}, ${base + 2}, 'active', null)`,
      )
      const em = await unit()
      const [author, book] = await Promise.all([em.load('author', base + 2), em.load('book', base + 2)])
      book['editor_id'] = em.create('editor', { id: base + 2, name: 'e' })
      em.remove(author)
      const e = await em.flush().catch((error: unknown) => error)
      expect(isPipeflushError(e, 'CONSTRAINT_VIOLATION')).toBe(true)
      expect((e as Error).message).toMatch(/^delete on author violated constraint "book_check"/)
      expect(await db.sql`select id from editor where id = ${base + 2}`).toEqual([])
      expect(em.pending).toEqual({ inserts: 1, updates: 1, deletes: 1, upserts: 0 })
    })

    test("a tree's root removed, its child's parent key SET NULL refused by a CHECK: the error names that delete", async () => {
      await db.sql.unsafe(`insert into node values (${base}, true, null), (${base + 1}, false, ${base});
        insert into editor values (${base + 5}, 'e')`)
      const em = await unit()
      const [root, editor] = await Promise.all([em.load('node', base), em.load('editor', base + 5)])
      editor['name'] = 'renamed'
      em.remove(root)
      const e = await em.flush().catch((error: unknown) => error)
      expect(isPipeflushError(e, 'CONSTRAINT_VIOLATION')).toBe(true)
      expect((e as Error).message).toMatch(/^delete on node violated constraint "node_check"/)
    })

    test('ON DELETE SET DEFAULT to a row created in the same flush, after a new row it references', async () => {
      await db.sql.unsafe(`delete from member; delete from grp; delete from owner;
        insert into grp values (1, null); insert into member values (1, 1)`)
      const em = await unit()
      const old = await em.load('grp', 1)
      em.create('grp', { id: 0, owner_id: em.create('owner', { id: base }) })
      em.remove(old)
      await em.flush()
      expect(await db.sql`select grp_id from member`).toEqual([{ grp_id: 0 }])
    })
  })
})
