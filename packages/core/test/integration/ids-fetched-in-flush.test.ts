import { EntityManager, type PipelineMode } from '@pipeflush/core'
import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { counted } from './fixtures/counted.ts'

// A flush of new rows that needs more ids than the pool holds drafts its plan before the ids are
// known (so bad input fails before the id fetch), fetches the ids on its connection, then completes
// the plan with them. What lands must be what the entities say: every id, every reference between
// new rows, in every mode and driver.
const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']
const drivers: DriverName[] = [...TEST_DRIVERS, 'pg-simple']

beforeAll(async () => {
  await db.sql.unsafe(`
    create table rb_parent (id bigserial primary key, name text not null);
    create table rb_child (id serial primary key, parent_id bigint not null references rb_parent, other_id bigint references rb_parent, label text not null);
  `)
})

describe.each(drivers.flatMap((driver) => modes.map((mode) => [driver, mode] as const)))(
  '%s, %s',
  (driver, mode) => {
    test('new parents and children whose ids are fetched: every id and reference lands as the entities say', async () => {
      const c = db.client(driver, { max: 1 })
      // A small id block: the flush below needs far more ids than connecting fetched.
      const root = await EntityManager.connect(c.client, { pipeline: mode, idBlockSize: 5 })
      const tag = `${driver}-${mode}`
      const em = root.fork()
      const parents = Array.from({ length: 120 }, (_, i) => em.create('rb_parent', { name: `${tag}-${i}` }))
      const children = Array.from({ length: 300 }, (_, i) =>
        em.create('rb_child', {
          parent_id: parents[(i * 7) % 120],
          other_id: i % 3 === 0 ? null : parents[(i * 11) % 120],
          label: `${tag}-${i}`,
        }),
      )
      const report = await counted(c.counter, () => em.flush())
      expect(report).toMatchObject({ idFetch: true, inserted: 420, statements: 2, waves: 2 })
      const rows = await db.sql<{ id: string; parent: string; other: string | null; label: string }[]>`
        select c.id::text, p.name as parent, o.name as other, c.label from rb_child c
        join rb_parent p on p.id = c.parent_id left join rb_parent o on o.id = c.other_id
        where c.label like ${`${tag}-%`}`
      const byLabel = new Map(rows.map((r) => [r.label, r]))
      expect(byLabel.size).toBe(300)
      children.forEach((child, i) => {
        const row = byLabel.get(`${tag}-${i}`)
        expect(row?.id).toBe(String(child['id']))
        expect(row?.parent).toBe(`${tag}-${(i * 7) % 120}`)
        expect(row?.other).toBe(i % 3 === 0 ? null : `${tag}-${(i * 11) % 120}`)
        expect(child['parent_id']).toBe(parents[(i * 7) % 120]!['id'])
      })
      const parentIds = await db.sql<{ id: string; name: string }[]>`
        select id::text, name from rb_parent where name like ${`${tag}-%`}`
      const idByName = new Map(parentIds.map((r) => [r.name, r.id]))
      for (const [i, p] of parents.entries()) expect(String(p['id'])).toBe(idByName.get(`${tag}-${i}`))
      expect(parents.every((p) => em.stateOf(p) === 'managed')).toBe(true)
      expect((await em.flush()).statements).toBe(0) // nothing left to write: the snapshots hold the ids
      children[0]!['label'] = `${tag}-0-renamed`
      expect((await em.flush()).updated).toBe(1)
    })

    test('an entity edited while the ids are fetched: the flush plans again and writes the edit', async () => {
      const c = db.client(driver, { max: 1 })
      const root = await EntityManager.connect(c.client, { pipeline: mode, idBlockSize: 5 })
      const tag = `${driver}-${mode}-edited`
      const em = root.fork()
      const parent = em.create('rb_parent', { name: tag })
      const kids = Array.from({ length: 20 }, (_, i) =>
        em.create('rb_child', { parent_id: parent, label: `${tag}-${i}` }),
      )
      const flushing = em.flush() // planned now; the ids come after a round trip
      kids[3]!['label'] = `${tag}-3-changed`
      expect(await flushing).toMatchObject({ idFetch: true, inserted: 21 })
      const [row] = await db.sql<
        { label: string }[]
      >`select label from rb_child where id = ${String(kids[3]!['id'])}`
      expect(row?.label).toBe(`${tag}-3-changed`)
      expect((await em.flush()).statements).toBe(0)
    })
  },
)
