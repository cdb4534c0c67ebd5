import { EntityManager } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// A flush whose before-flush hook upserted a row fails, while clear() and new upserts were made in
// flight: the new upserts are the next flush's. The hook's undo took back upserts by the positions
// they had before the clear, and dropped one of the new ones (found by a review).
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table ifh_t (id serial primary key, code text unique not null, v text);
    create function ifh_slow_fail() returns trigger language plpgsql as $$
    begin
      if new.code = 'boom' then perform pg_sleep(0.3); raise exception 'boom'; end if;
      return new;
    end $$;
    create trigger ifh_trg before insert on ifh_t for each row execute function ifh_slow_fail();
  `)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each([true, false])(
    'a hook that upserts: %s; clear() and new upserts while a failing flush is in flight: the new upserts are written next',
    async (withHook) => {
      const { client } = db.client(driver, { max: 2 })
      let hooked = false
      const hooks = withHook
        ? {
            beforeFlush(em: EntityManager) {
              if (!hooked) {
                hooked = true
                em.upsert('ifh_t', { code: 'hook', v: 'h' }, { conflict: ['code'] })
              }
            },
          }
        : undefined
      const root = await EntityManager.connect(client, hooks ? { hooks } : {})
      await db.sql.unsafe('delete from ifh_t')
      const em = root.fork()
      em.upsert('ifh_t', { code: 'u0', v: '0' }, { conflict: ['code'] })
      em.create('ifh_t', { code: 'boom', v: 'x' })
      const flushing = em.flush()
      await new Promise((r) => setTimeout(r, 100))
      void em.clear()
      const u1 = em.upsert('ifh_t', { code: 'u1', v: '1' }, { conflict: ['code'] })
      const u2 = em.upsert('ifh_t', { code: 'u2', v: '2' }, { conflict: ['code'] })
      const failed = await flushing.then(
        () => 'ok',
        (e: Error) => `failed: ${e.message.slice(0, 40)}`,
      )
      const next = await em.flush()
      const rows = await db.sql.unsafe<{ code: string }[]>('select code from ifh_t order by code')
      expect({
        failed: failed.startsWith('failed'),
        upserted: next.upserted,
        rows: rows.map((r) => r.code),
        u1: em.stateOf(u1),
        u2: em.stateOf(u2),
      }).toEqual({
        failed: true,
        upserted: 2,
        rows: ['u1', 'u2'],
        u1: 'managed',
        u2: 'managed',
      })
    },
  )
})
