import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { connectOn, schemaOf } from './fixtures/schema-client.ts'

// A key given in a form the server stores otherwise (spaces past a varchar(n), a uuid in braces) is
// referenced as stored: a wider column (varchar(10) with a foreign key, text without one) writes the
// parent's key as its row holds it, and a find by the entity finds those rows.
const db = useTestDatabase()

beforeAll(async () => {
  for (const driver of TEST_DRIVERS) {
    const s = schemaOf('stored_keys', driver)
    await db.sql.unsafe(`
      create schema "${s}";
      create table "${s}".parent (code varchar(3) primary key, n int);
      create table "${s}".kid_fk (id serial primary key, parent_id varchar(10) references "${s}".parent, n int);
      create table "${s}".kid_text (id serial primary key, parent_id text, n int);
      create table "${s}".tagged (id uuid primary key, n int);
      create table "${s}".tag_ref (id serial primary key, tagged_id text, n int);
    `)
  }
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('a reference writes the key as the parent row stores it', async () => {
    const s = schemaOf('stored_keys', driver)
    const { root, end } = await connectOn(db, driver, s)
    try {
      const em = root.fork()
      const parent = em.create('parent', { code: 'ab   ', n: 0 }) // stored 'ab '
      const tagged = em.create('tagged', { id: '{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}', n: 0 })
      await em.flush()
      em.create('kid_fk', { parent_id: parent, n: 1 })
      em.create('kid_text', { parent_id: parent, n: 1 })
      em.create('tag_ref', { tagged_id: tagged, n: 1 })
      await em.flush()
      const rows = await db.sql.unsafe(`
        select (select parent_id from "${s}".kid_fk) as fk, (select parent_id from "${s}".kid_text) as txt,
               (select tagged_id from "${s}".tag_ref) as tag`)
      expect(rows[0]).toEqual({ fk: 'ab ', txt: 'ab ', tag: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' })
      const [byEntity, tags] = await Promise.all([
        em.find('kid_text', { parent_id: parent }),
        em.find('tag_ref', { tagged_id: tagged }),
      ])
      expect([byEntity.length, tags.length]).toEqual([1, 1])
      // After the flush each reference holds the key as stored, not the parent entity.
      const held = [...byEntity, ...tags].map((r) => r['parent_id'] ?? r['tagged_id'])
      expect(held).toEqual(['ab ', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'])
    } finally {
      await end()
    }
  })

  test('a new parent and its child in one flush: the child holds the stored key after it', async () => {
    const s = schemaOf('stored_keys', driver)
    const { root, end } = await connectOn(db, driver, s)
    try {
      const em = root.fork()
      const parent = em.create('parent', { code: 'cd   ', n: 0 })
      const kid = em.create('kid_fk', { parent_id: parent, n: 1 })
      const text = em.create('kid_text', { parent_id: parent, n: 1 })
      await em.flush()
      expect([kid['parent_id'], text['parent_id']]).toEqual(['cd ', 'cd '])
      const again = await em.flush()
      expect(again.statements).toBe(0)
    } finally {
      await end()
    }
  })
})
