import { randomUUID } from 'node:crypto'
import { EntityManager, isPipeflushError, type PipelineMode } from '@pipeflush/core'
import type { DriverName } from '@pipeflush/testkit'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import type pg from 'pg'
import { beforeAll, describe, expect, test } from 'vitest'
import { settleWithin, waitForSleepingBackend, waitUntil } from './support.ts'

const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']
const DDL = (name: string) =>
  `create table ${name} (flush_id uuid primary key, committed boolean not null, at timestamptz not null default now())`

beforeAll(async () => {
  await db.sql.unsafe(`
    ${DDL('pipeflush_flush_log')};
    create schema audit; ${DDL('audit.flush_log')};
    create table no_committed (flush_id uuid primary key);
    create table not_unique (flush_id uuid not null, committed boolean not null);
    create table gizmo (id bigserial primary key, name text not null);
    ${DDL('noticed_log')};
    create function notice_flush() returns trigger language plpgsql as $$
      begin raise notice '%', new.flush_id; return new; end $$;
    create trigger notice_flush after insert on noticed_log for each row when (new.committed)
      execute function notice_flush();
    create table late (id bigserial primary key, ms int not null, ok boolean not null default true);
    create function late_check() returns trigger language plpgsql as $$
      begin perform pg_sleep(new.ms / 1000.0);
        if not new.ok then raise exception 'late check failed for %', new.id; end if;
        return null; end $$;
    create constraint trigger late_check after insert on late deferrable initially deferred
      for each row execute function late_check();
  `)
})

/** A pool of `driver` whose connections tell `onNotice` the server's notices. */
function withNotices(driver: DriverName, onNotice: (message: string) => void) {
  if (driver === 'postgres.js') {
    return db.client(driver, {
      max: 1,
      postgresJs: { onnotice: (n: { message: string }) => onNotice(n.message) },
    })
  }
  const c = db.client(driver, { max: 1 })
  ;(c.client as pg.Pool).on('connect', (client) => client.on('notice', (n) => onNotice(String(n.message))))
  return c
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  describe('configuration', () => {
    test.each([
      ['missing', 'does not exist'],
      ['no_committed', 'no boolean column "committed"'],
      ['not_unique', 'no primary key or unique index'],
    ])('a flush log table that is %s is refused at connect, with the DDL', async (table, problem) => {
      const { client } = db.client(driver, { max: 1 })
      const error = await EntityManager.connect(client, { flushLog: table }).catch((e: unknown) => e)
      expect(isPipeflushError(error, 'INVALID_CONFIG')).toBe(true)
      expect((error as Error).message).toContain(problem)
      expect((error as Error).message).toContain(`create table "${table}" (flush_id uuid primary key`)
    })

    test('wasCommitted without a flush log, or with something not a flush id, is refused', async () => {
      const { client } = db.client(driver, { max: 1 })
      const plain = await EntityManager.connect(client)
      await expect(plain.wasCommitted(randomUUID())).rejects.toMatchObject({ code: 'INVALID_CONFIG' })
      const logged = await EntityManager.connect(client, { flushLog: 'pipeflush_flush_log' })
      await expect(logged.wasCommitted("'; drop table gizmo; --")).rejects.toMatchObject({
        code: 'INVALID_VALUE',
      })
    })
  })

  describe.each(modes)('%s', (mode) => {
    test('each flush records its id in its own transaction, at no extra round trip; wasCommitted answers', async () => {
      const { client, counter } = db.client(driver, { max: 1 })
      const plain = await EntityManager.connect(client, { pipeline: mode, idBlockSize: 100 })
      const logged = await EntityManager.connect(client, {
        pipeline: mode,
        idBlockSize: 100,
        flushLog: 'audit.flush_log',
      })
      const trips = async (root: EntityManager) => {
        const em = root.fork()
        em.create('gizmo', { name: `${driver}-${mode}-a` })
        em.create('gizmo', { name: `${driver}-${mode}-b` })
        counter.reset()
        const report = await em.flush()
        expect(counter.read().roundTrips).toBe(report.roundTrips)
        return report
      }
      for (let i = 0; i < 2; i++) await trips(logged) // ids fetched, statement shapes known
      await trips(plain)
      const without = await trips(plain)
      const withLog = await trips(logged)
      expect(withLog.roundTrips).toBe(without.roundTrips)
      const [row] = await db.sql<
        { committed: boolean }[]
      >`select committed from audit.flush_log where flush_id = ${withLog.flushId}`
      expect(row?.committed).toBe(true)
      expect(await logged.wasCommitted(withLog.flushId)).toBe(true)
      expect(await logged.fork().wasCommitted(withLog.flushId)).toBe(true)
    })

    test('wasCommitted asked while the flush is still committing waits for it: true when its COMMIT succeeds, false when it fails', async () => {
      // A notice from a trigger on the log tells the flushing client its flush id while the transaction runs.
      const ids: string[] = []
      const { client } = withNotices(driver, (message) => ids.push(message))
      const root = await EntityManager.connect(client, { pipeline: mode, flushLog: 'noticed_log' })
      const checker = await EntityManager.connect(db.client(driver, { max: 1, proxied: false }).client, {
        flushLog: 'noticed_log',
      })
      for (const ok of [true, false]) {
        ids.length = 0
        const em = root.fork()
        em.create('late', { ms: 500, ok })
        em.create('gizmo', { name: `late-${driver}-${mode}-${ok}` })
        const flush = em.flush()
        flush.catch(() => {})
        await waitForSleepingBackend(db.sql) // the COMMIT runs the deferred trigger, which sleeps
        // The notice was sent before the sleep, on the flush's connection: the client may read it a
        // little after this check's answer on another connection (it did once under a full test run).
        await waitUntil(async () => ids.length > 0, 2_000, "the flush log insert's notice")
        expect(ids).toHaveLength(1)
        const asked = performance.now()
        const answer = await checker.wasCommitted(ids[0]!)
        const waited = performance.now() - asked
        const outcome = await settleWithin(flush, 10_000)
        expect(outcome.ok).toBe(ok)
        expect(outcome.ok ? outcome.value!.flushId : (outcome.error as { flushId: string }).flushId).toBe(
          ids[0],
        )
        expect(answer).toBe(ok)
        expect(waited).toBeGreaterThan(100) // it waited for the COMMIT instead of answering from a snapshot
      }
    })
  })

  test('wasCommitted on an id no flush used answers false and fences it for good', async () => {
    const checker = await EntityManager.connect(db.client(driver, { max: 1 }).client, {
      flushLog: 'pipeflush_flush_log',
    })
    const id = randomUUID()
    expect(await checker.wasCommitted(id)).toBe(false)
    expect(await checker.wasCommitted(id)).toBe(false)
    const [row] = await db.sql<
      { committed: boolean }[]
    >`select committed from pipeflush_flush_log where flush_id = ${id}`
    expect(row?.committed).toBe(false)
    // A flush carrying that id could not commit any more: its own insert of the id would collide.
    const collide = await db.sql
      .begin((tx) => tx`insert into pipeflush_flush_log (flush_id, committed) values (${id}, true)`)
      .catch((e: unknown) => e)
    expect((collide as { code?: string }).code).toBe('23505')
  })
})
