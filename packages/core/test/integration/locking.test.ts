import { type Entity, EntityManager, isPipeflushError, type PipelineMode } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { rowLocked, waitForLockWaiters } from './faults/support.ts'

// Locking reads: a unit of work that reads with `lock` holds a transaction from that read (BEGIN in
// the same round trip) to its flush (statements and COMMIT, no BEGIN): two round trips at the socket.
// The locks are seen from another connection (`for update nowait` fails while they are held), and
// every way the transaction can end without its flush gives the connection back (a pool of one then
// serves the next read) and commits nothing.
const db = useTestDatabase()
const MODES: PipelineMode[] = ['burst', 'waves', 'off']

beforeAll(async () => {
  await db.sql.unsafe(`
    create table account (id int primary key, owner text not null, balance int not null check (balance >= 0));
    create table entry (id bigserial primary key, account_id int not null references account, amount int not null);
  `)
})

beforeEach(async () => {
  await db.sql.unsafe(`
    truncate entry, account;
    insert into account values (1, 'ada', 100), (2, 'grace', 50), (3, 'alan', 0);
  `)
})

/** Whether another connection finds account `id` locked. */
const locked = (id: number) => rowLocked(db.sql, 'account', id)

const balance = async (id: number) =>
  (await db.sql.unsafe<{ balance: number }[]>(`select balance from account where id = ${id}`))[0]!.balance

describe.each(TEST_DRIVERS)('%s', (driver) => {
  async function setup(options: { flushTimeoutMs?: number } = {}) {
    const c = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(c.client, options)
    await root.fork().find('entry', {}) // a warm connection and warm id pool questions aside
    return { ...c, root }
  }

  test.each(MODES)(
    '%s mode: lock, decide, write: BEGIN with the locking read, statements and COMMIT in the flush',
    async (mode) => {
      const { root, counter } = await setup()
      const em = root.fork({ pipeline: mode })
      counter.reset()
      const [from, to] = await Promise.all([
        em.load('account', 1, { lock: 'update' }),
        em.load('account', 2, { lock: 'update' }),
      ])
      expect(counter.read().roundTrips, 'BEGIN and both locking reads').toBe(1)
      expect(await locked(1)).toBe(true)
      expect(await locked(2)).toBe(true)
      expect(await locked(3)).toBe(false)
      from!['balance'] = Number(from!['balance']) - 30
      to!['balance'] = Number(to!['balance']) + 30
      counter.reset()
      const report = await em.flush()
      const expected = mode === 'burst' ? 1 : mode === 'waves' ? 1 + report.waves : 1 + report.statements
      expect(counter.read().roundTrips, 'the flush: statements and COMMIT, no BEGIN').toBe(expected)
      expect(report.roundTrips).toBe(expected)
      expect(report.connected).toBe(false)
      expect([await balance(1), await balance(2)]).toEqual([70, 80])
      expect(await locked(1), 'released by the COMMIT').toBe(false)
      // The pool's one connection is back, outside any transaction.
      const again = root.fork()
      expect((await again.load('account', 1))['balance']).toBe(70)
    },
  )

  // Two requests locking the same rows in opposite orders deadlocked: each load was a select of its own,
  // sent in the order of the calls.
  test('locking loads of one tick are one select, locking the rows in key order whatever the order of the calls', async () => {
    const { root, counter } = await setup()
    const holder = await db.sql.reserve()
    try {
      await holder.unsafe('begin')
      await holder.unsafe('select 1 from account where id = 3 for update')
      const em = root.fork()
      counter.reset()
      const loads = Promise.all([
        em.load('account', 3, { lock: 'update' }),
        em.load('account', 1, { lock: 'update' }),
        em.load('account', 2, { lock: 'update' }),
      ])
      await waitForLockWaiters(db.sql, 1)
      // Rows 1 and 2 come before the held row 3 in key order: locked while the select waits for it.
      expect([await locked(1), await locked(2)]).toEqual([true, true])
      await holder.unsafe('commit')
      const rows = await loads
      expect(rows.map((r) => r['owner'])).toEqual(['alan', 'ada', 'grace'])
      expect(counter.read().roundTrips, 'BEGIN and the one select').toBe(1)
      await em.clear()
      expect(await locked(1)).toBe(false)
    } finally {
      holder.release()
    }
  })

  test('a graph read with lock locks every level; reads after it run in the transaction', async () => {
    const { root, counter } = await setup()
    await db.sql.unsafe('insert into entry (account_id, amount) values (1, 5), (1, 7)')
    const em = root.fork()
    counter.reset()
    const [ada] = await em.find('account', { owner: 'ada' }, { with: { entries: true }, lock: 'update' })
    expect(counter.read().roundTrips).toBe(1)
    expect((ada!['entries'] as Entity[]).map((e) => e['amount']).sort()).toEqual([5, 7])
    expect(await locked(1)).toBe(true)
    const entryLocked = await db.sql
      .begin((tx) => tx.unsafe('select 1 from entry where account_id = 1 for update nowait'))
      .then(
        () => false,
        (e: { code?: string }) => e.code === '55P03',
      )
    expect(entryLocked).toBe(true)
    // A plain read of the same unit of work goes in the held transaction (the pool has one connection).
    const grace = await em.load('account', 2)
    expect(grace['owner']).toBe('grace')
    em.create('entry', { account_id: ada, amount: -12 })
    ada!['balance'] = 88
    await em.flush()
    expect(await balance(1)).toBe(88)
    expect(await locked(1)).toBe(false)
  })

  test('prepared bursts and COPY inside the held transaction: one round trip, committed together', async () => {
    const c = db.client(driver, { max: 1 })
    const root = await EntityManager.connect(c.client, { prepare: true, copyRows: 5 })
    await root.fork().find('entry', {})
    for (const copy of [false, true]) {
      const em = root.fork()
      const ada = await em.load('account', 1, { lock: 'update' })
      for (let i = 0; i < (copy ? 8 : 2); i++) em.create('entry', { account_id: ada, amount: i })
      ada['balance'] = Number(ada['balance']) - 1
      expect(
        em
          .plan()
          .waves.flat()
          .some((st) => st.copy === true),
      ).toBe(copy)
      c.counter.reset()
      const report = await em.flush()
      expect(c.counter.read().roundTrips - report.roundTrips, 'the report agrees with the socket').toBe(0)
      // postgres.js writes COPY's data when the server asks for it: one more round trip per COPY.
      const copyTrips = copy && driver === 'postgres.js' ? 1 : 0
      expect(report.roundTrips, report.idFetch ? 'ids fetched first' : 'one round trip').toBe(
        1 + copyTrips + (report.idFetch ? 1 : 0),
      )
      expect(await locked(1)).toBe(false)
    }
    expect(await balance(1)).toBe(98)
    const [row] = await db.sql.unsafe<{ n: number }[]>('select count(*)::int as n from entry')
    expect(row!.n).toBe(10)
  })

  test('a unit of work that writes nothing ends its transaction at flush, in one round trip', async () => {
    const { root, counter } = await setup()
    const em = root.fork()
    await em.load('account', 3, { lock: 'share' })
    expect(await locked(3)).toBe(true)
    counter.reset()
    const report = await em.flush()
    expect(report.roundTrips).toBe(1)
    expect(counter.read().roundTrips).toBe(1)
    expect(await locked(3)).toBe(false)
  })

  // A locking read that fails ends its transaction with a ROLLBACK, whatever the error: a syntax error
  // with a position may come from text parsed as a statement runs (a cast to regtype), after the
  // BEGIN of its message ran. Telling that from a message that did not parse at all (then the
  // ROLLBACK only draws the server's "no transaction in progress" warning) left a connection in an
  // aborted transaction in the pool.
  test('a locking read failing with a syntax error, of its text or raised as it runs: the transaction rolled back, the connection idle', async () => {
    const { root, counter } = await setup()
    const em = root.fork()
    counter.reset()
    const bad = await em
      .loadRows('account', { text: 'selec * from account where id = 1', params: [] }, { lock: 'update' })
      .catch((e: unknown) => e)
    expect(isPipeflushError(bad, 'STATEMENT_FAILED')).toBe(true)
    expect(counter.read().roundTrips).toBe(2) // the read, its ROLLBACK
    expect(await locked(1)).toBe(false)
    const atRun = await em
      .loadRows(
        'account',
        { text: "select * from account where 'int4 (('::text::regtype is not null", params: [] },
        { lock: 'update' },
      )
      .catch((e: unknown) => e)
    expect(isPipeflushError(atRun, 'STATEMENT_FAILED'), String(atRun)).toBe(true)
    expect(await root.fork().select({ text: 'select 1 as n', params: [] })).toEqual([{ n: 1 }]) // the pool's one connection, idle
    const ada = await em.load('account', 1, { lock: 'update' }) // a new transaction on the idle connection
    expect(await locked(1)).toBe(true)
    counter.reset()
    const again = await em
      .loadRows('account', { text: 'selec * from account where id = 2', params: [] }, { lock: 'update' })
      .catch((e: unknown) => e)
    expect(isPipeflushError(again, 'STATEMENT_FAILED')).toBe(true)
    expect(counter.read().roundTrips).toBe(2) // the read, then the ROLLBACK of the transaction it aborted
    expect(await locked(1)).toBe(false)
    expect(ada['balance']).toBe(100)
    expect((await root.fork().load('account', 2))['owner']).toBe('grace')
  })

  test('clear() rolls the transaction back and gives the connection back', async () => {
    const { root } = await setup()
    const em = root.fork()
    const ada = await em.load('account', 1, { lock: 'update' })
    ada['balance'] = 0
    await em.clear() // the application decided not to write (or threw)
    expect(await locked(1)).toBe(false)
    expect((await root.fork().load('account', 1))['balance']).toBe(100)
  })

  test('held longer than flushTimeoutMs: the connection is closed, the flush is LOCKS_RELEASED and sends nothing', async () => {
    const { root, counter } = await setup({ flushTimeoutMs: 400 })
    const em = root.fork()
    const ada = await em.load('account', 1, { lock: 'update' })
    ada['balance'] = 1
    await new Promise((resolve) => setTimeout(resolve, 700))
    expect(await locked(1), 'released when the hold expired').toBe(false)
    counter.reset()
    const e = await em.flush().catch((error: unknown) => error)
    expect(isPipeflushError(e, 'LOCKS_RELEASED')).toBe(true)
    expect(counter.read().roundTrips, 'nothing sent').toBe(0)
    expect(em.pending.updates, 'the unit of work as it was').toBe(1)
    expect(await balance(1)).toBe(100)
    // The pool of one serves the next unit of work.
    expect((await root.fork().load('account', 2))['owner']).toBe('grace')
  })

  test.each([2 ** 31, 30 * 24 * 3_600_000])(
    'flushTimeoutMs %i, longer than a timer waits: no limit, the locks held until the flush commits',
    async (flushTimeoutMs) => {
      const { root } = await setup({ flushTimeoutMs })
      for (const em of [root.fork(), root.fork({ flushTimeoutMs })]) {
        const ada = await em.load('account', 1, { lock: 'update' })
        await new Promise((resolve) => setTimeout(resolve, 50))
        expect(await locked(1), 'still held').toBe(true)
        ada['balance'] = Number(ada['balance']) - 1
        expect(await em.flush()).toMatchObject({ updated: 1 })
      }
      expect(await balance(1)).toBe(98)
    },
  )

  test('the held connection lost: the flush fails, commits nothing, the pool serves the next read', async () => {
    const { root } = await setup()
    const em = root.fork()
    const ada = await em.load('account', 1, { lock: 'update' })
    const [holder] = await db.sql.unsafe<{ pid: number }[]>(
      `select pid from pg_locks where relation = 'account'::regclass and mode = 'RowShareLock' and pid <> pg_backend_pid()`,
    )
    expect(holder, 'the backend holding the lock').toBeDefined()
    await db.sql.unsafe(`select pg_terminate_backend(${holder!.pid}, 5000)`) // waits until it is gone
    await new Promise((resolve) => setTimeout(resolve, 50)) // the client sees its socket close
    ada['balance'] = 1
    const e = await em.flush().catch((error: unknown) => error)
    expect(isPipeflushError(e) ? e.code : e).toBe('LOCKS_RELEASED')
    expect(await balance(1)).toBe(100)
    expect((await root.fork().load('account', 2))['owner']).toBe('grace')
  })

  test.each(MODES)(
    '%s mode: a statement of the flush fails: nothing committed, the locks released (one ROLLBACK), the next flush is told',
    async (mode) => {
      const { root, counter } = await setup()
      const em = root.fork({ pipeline: mode })
      const alan = await em.load('account', 3, { lock: 'update' })
      alan['balance'] = -1 // breaks the check constraint
      counter.reset()
      const e = await em.flush().catch((error: unknown) => error)
      expect(isPipeflushError(e, 'CONSTRAINT_VIOLATION')).toBe(true)
      // The statements, then one ROLLBACK (a second one was answered "no transaction in progress").
      expect(counter.read().roundTrips).toBe(2)
      expect(await locked(3)).toBe(false)
      expect((await root.fork().load('account', 2))['owner'], 'the connection is back, usable').toBe('grace')
      const again = await em.flush().catch((error: unknown) => error)
      expect(isPipeflushError(again, 'LOCKS_RELEASED')).toBe(true)
      alan['balance'] = 1
      await em.flush() // then it flushes as a unit of work that never locked
      expect(await balance(3)).toBe(1)
    },
  )

  test('an unknown lock is INVALID_VALUE before anything is sent', async () => {
    const { root, counter } = await setup()
    counter.reset()
    const e = await root
      .fork()
      .load('account', 1, { lock: 'exclusive' as never })
      .catch((error: unknown) => error)
    expect(isPipeflushError(e, 'INVALID_VALUE')).toBe(true)
    expect(counter.read().roundTrips).toBe(0)
  })
})
