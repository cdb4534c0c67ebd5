import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// A unit of work reads while its flush is being sent (`em.flush()` not awaited yet): on the one
// connection of a unit of work in other ORMs, the read would follow the flush's statements. Here the
// read goes on a connection of its own, so it waits for the flush: it reads what the flush wrote, or
// what was there when the flush failed, whichever connection the pool hands it.

const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table desk (id bigserial primary key, name text not null unique, floor int not null);
    insert into desk (name, floor) values ('window', 1), ('door', 2);
    -- A desk named slow-... takes the server a moment to insert: a read sent meanwhile on another
    -- connection would run before the flush's COMMIT.
    create function desk_slow() returns trigger language plpgsql as $$
      begin if new.name like 'slow-%' then perform pg_sleep(0.3); end if; return new; end $$;
    create trigger desk_slow before insert on desk for each row execute function desk_slow();
    create table chair (id bigserial primary key, desk_id bigint not null references desk, n int not null);
  `)
})

/** Lets the event loop turn once: the flush is written, not answered. */
const aMacrotask = () => new Promise((r) => setImmediate(r))

describe.each(TEST_DRIVERS)('%s', (driver) => {
  // Pools of several connections, cold: the read is handed a connection other than the flush's.
  describe.each([2, 4])('a cold pool of %i', (max) => {
    async function root(): Promise<EntityManager> {
      return EntityManager.connect(db.client(driver, { max, proxied: false }).client)
    }

    test('a read started during the flush reads the rows it inserted and updated', async () => {
      const em = (await root()).fork()
      const [window] = await em.find('desk', { name: 'window' })
      const name = `slow-${driver}-${max}`
      em.create('desk', { name, floor: 3 })
      window!['floor'] = Number(window!['floor']) + 10
      const flushed = em.flush()
      await aMacrotask()
      const [created, updated] = await Promise.all([
        em.find('desk', { name }),
        em.find('desk', { name: 'window' }),
      ])
      expect((await flushed).inserted).toBe(1)
      expect(created.map((d) => d['name'])).toEqual([name])
      expect(updated[0]).toBe(window) // the identity map's entity, holding what was flushed
      const [row] = await db.sql`select floor from desk where name = 'window'`
      expect(updated[0]!['floor']).toBe(row!['floor'])
    })

    test('a read started during a flush that fails reads what was there, and the unit is as it was', async () => {
      const em = (await root()).fork()
      em.create('desk', { name: 'door', floor: 9 }) // a duplicate name: the flush fails at the server
      const flushed = em.flush().catch((e: unknown) => e)
      await aMacrotask()
      const doors = await em.find('desk', { name: 'door' })
      const error = await flushed
      expect(isPipeflushError(error) && error.code).toBe('CONSTRAINT_VIOLATION')
      expect(doors.map((d) => d['floor'])).toEqual([2])
      expect(
        em
          .plan()
          .waves.flat()
          .map((s) => `${s.kind} ${s.table}`),
      ).toEqual(['insert desk'])
    })
  })

  test('a find given a new entity during its flush reads by the key the flush gives it', async () => {
    const em = (await EntityManager.connect(db.client(driver, { max: 2, proxied: false }).client)).fork()
    const desk = em.create('desk', { name: `slow-given-${driver}`, floor: 5 })
    const chairs = [0, 1].map((n) => em.create('chair', { desk_id: desk, n }))
    const flushed = em.flush()
    const found = await em.find('chair', { desk_id: desk })
    expect((await flushed).inserted).toBe(3)
    expect(found).toEqual(chairs)
  })

  test('a find given a new entity without a flush: INVALID_STATE naming the condition, nothing sent', async () => {
    const c = db.client(driver, { max: 2, proxied: false })
    const em = (await EntityManager.connect(c.client)).fork()
    const desk = em.create('desk', { name: `unflushed-${driver}`, floor: 6 })
    const before = c.counter.read()
    const error = await em.find('chair', { desk_id: desk }).catch((e: unknown) => e)
    expect(isPipeflushError(error) && [error.code, error.table, error.column]).toEqual([
      'INVALID_STATE',
      'chair',
      'desk_id',
    ])
    expect(String((error as Error).message)).toMatch(/new desk entity that has no key yet/)
    expect(c.counter.read().bytesOut).toBe(before.bytesOut)
  })

  test('a beforeFlush hook that reads through the unit of work is not held behind the flush', async () => {
    const c = db.client(driver, { max: 2, proxied: false })
    const seen: number[] = []
    const root = await EntityManager.connect(c.client, {
      hooks: {
        async beforeFlush(em, { run }) {
          if (run === 1) seen.push((await em.find('desk', { name: 'window' })).length)
        },
      },
    })
    const em = root.fork()
    em.create('desk', { name: `hooked-${driver}`, floor: 4 })
    expect((await em.flush()).inserted).toBe(1)
    expect(seen).toEqual([1])
  })
})
