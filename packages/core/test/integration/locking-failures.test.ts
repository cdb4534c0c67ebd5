import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { rowLocked } from './faults/support.ts'

const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`create table account (id int primary key, owner text not null, balance int not null);`)
})

beforeEach(async () => {
  await db.sql.unsafe(
    `truncate account; insert into account values (1, 'ada', 100), (2, 'grace', 50), (3, 'alan', 0);`,
  )
})

/** Whether another connection finds account `id` locked. */
const locked = (id: number) => rowLocked(db.sql, 'account', id)

const idleInTransaction = async () =>
  Number(
    (
      await db.sql.unsafe<{ n: string }[]>(
        `select count(*)::text as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%' and pid <> pg_backend_pid()`,
      )
    )[0]!.n,
  )

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test("the server ending a held transaction (idle_in_transaction_session_timeout): LOCKS_RELEASED, with the server's reason where the driver gives it", async () => {
    const c = db.client(driver, {
      max: 1,
      postgresJs: { connection: { idle_in_transaction_session_timeout: 100 } },
      pg: { options: '-c idle_in_transaction_session_timeout=100' },
    })
    const em = (await EntityManager.connect(c.client)).fork()
    const account = await em.load('account', 1, { lock: 'update' })
    await new Promise((r) => setTimeout(r, 400))
    account['balance'] = 101
    const e = await em.flush().catch((x: unknown) => x)
    expect(isPipeflushError(e, 'LOCKS_RELEASED'), String(e)).toBe(true)
    // postgres.js reports the server's FATAL on an idle connection as the connection closing, its
    // reason dropped: only node-postgres tells it.
    if (driver === 'pg') {
      expect(String(e)).toContain('idle-in-transaction timeout')
      expect(String(e)).toContain('SQLSTATE 25P03')
    } else expect(String(e)).toContain('its connection was lost')
    expect(await locked(1)).toBe(false)
  })

  test('a deadlock between two locking reads: the loser fails at once and lets go of its rows, the winner goes on', async () => {
    const c = db.client(driver, { max: 4 })
    const root = await EntityManager.connect(c.client, { flushTimeoutMs: 20_000 })
    const a = root.fork()
    const b = root.fork()
    await a.load('account', 1, { lock: 'update' })
    await b.load('account', 2, { lock: 'update' })
    const started = performance.now()
    const results = await Promise.allSettled([
      a.load('account', 2, { lock: 'update' }),
      new Promise((r) => setTimeout(r, 100)).then(() => b.load('account', 1, { lock: 'update' })),
    ])
    const elapsed = performance.now() - started
    const failed = results.filter((r) => r.status === 'rejected')
    expect(failed.length, JSON.stringify(results.map((r) => r.status))).toBe(1)
    const reason = (failed[0] as PromiseRejectedResult).reason
    expect(isPipeflushError(reason), String(reason)).toBe(true)
    expect(elapsed, 'the deadlock found in about a second, not at the flush timeout').toBeLessThan(5_000)
    const loser = results[0]!.status === 'rejected' ? a : b
    const winner = loser === a ? b : a
    const e = await loser.flush().catch((x: unknown) => x)
    expect(isPipeflushError(e, 'LOCKS_RELEASED'), String(e)).toBe(true)
    await winner.flush()
    expect(await locked(1)).toBe(false)
    expect(await locked(2)).toBe(false)
    expect(await idleInTransaction()).toBe(0)
  })

  test.each([
    ['the first locking read of the unit of work', false],
    ['a later tick, rows already locked', true],
  ])(
    'a locking load beside a failing select, %s: the select fails, the load is LOCKS_RELEASED, no lock kept',
    async (_, earlier) => {
      const c = db.client(driver, { max: 2 })
      const root = await EntityManager.connect(c.client)
      const em = root.fork()
      if (earlier) await em.load('account', 1, { lock: 'update' })
      const [load, bad, plain] = await Promise.allSettled([
        em.load('account', 2, { lock: 'update' }),
        em.select({ text: 'selec 1', params: [] }),
        em.load('account', 3),
      ])
      expect(bad.status === 'rejected' && isPipeflushError(bad.reason, 'STATEMENT_FAILED'), String(bad)).toBe(
        true,
      )
      // It read its row, but the failure beside it ended the transaction its lock was to be held in.
      const reason = load.status === 'rejected' ? load.reason : undefined
      expect(isPipeflushError(reason, 'LOCKS_RELEASED'), String(reason ?? 'resolved')).toBe(true)
      expect(String(reason)).toContain('locks no row')
      expect(
        plain.status === 'fulfilled' && plain.value['owner'],
        'a read that does not lock has its rows',
      ).toBe('alan')
      expect(await locked(1)).toBe(false)
      expect(await locked(2)).toBe(false)
      expect(await idleInTransaction()).toBe(0)
      if (earlier) {
        const e = await em.flush().catch((x: unknown) => x)
        expect(isPipeflushError(e, 'LOCKS_RELEASED'), 'the lock on row 1 went with the transaction').toBe(
          true,
        )
      }
      // Loaded again with its lock, in a new transaction.
      const two = await em.load('account', 2, { lock: 'update' })
      expect(await locked(2)).toBe(true)
      two['balance'] = 49
      await em.flush()
      expect(await locked(2)).toBe(false)
      expect((await root.fork().load('account', 2))['balance']).toBe(49)
    },
  )

  test('the locking load is the one that fails: it fails with its own error, a plain read beside it has its rows', async () => {
    const c = db.client(driver, { max: 2 })
    const root = await EntityManager.connect(c.client)
    const em = root.fork()
    const [bad, plain] = await Promise.allSettled([
      em.loadRows(
        'account',
        { text: 'select * from account where id = 1/0', params: [] },
        { lock: 'update' },
      ),
      em.load('account', 3),
    ])
    expect(bad.status === 'rejected' && isPipeflushError(bad.reason, 'STATEMENT_FAILED'), String(bad)).toBe(
      true,
    )
    expect(plain.status === 'fulfilled' && plain.value['owner']).toBe('alan')
    expect(await idleInTransaction()).toBe(0)
  })
})
