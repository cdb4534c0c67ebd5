import { appKysely, FlushMeter } from '@pipeflush/example-support'
import { createEntityManagerFactory } from '@pipeflush/kysely'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { concurrentTransfers, openAccounts, staleTransfer } from '../src/scenario.ts'
import { createSchema, type DB, resetData } from '../src/schema.ts'
import { transfer } from '../src/transfer.ts'

const db = useTestDatabase()
/** Setup and checks go through a direct postgres.js client, apart from the application's pool. */
const admin = (text: string) => db.sql.unsafe(text)

beforeAll(async () => {
  await createSchema(admin)
  await db.proxy.setLatency(1)
})

/** Every account's balance equals its opening balance plus what the ledger says came in and went out. */
async function ledgerExplainsBalances(opening: string): Promise<void> {
  const rows = await db.sql`
    select a.id, a.amount::text as amount,
      (${opening}::numeric
        + coalesce((select sum(amount) from ledger where to_account = a.id), 0)
        - coalesce((select sum(amount) from ledger where from_account = a.id), 0))::text as expected
    from account a order by a.id`
  expect(rows.length).toBe(10)
  for (const r of rows) expect(r['amount'], `account ${r['id']}`).toBe(r['expected'])
}

describe.each(
  TEST_DRIVERS.flatMap((driver) => (['burst', 'off'] as const).map((pipeline) => ({ driver, pipeline }))),
)('$driver, pipeline $pipeline', ({ driver, pipeline }) => {
  /** The application as the example runs it: a pool of `driver` and its Kysely, both given to pipeflush. */
  const factoryOn = async (max: number) => {
    const app = db.client(driver, { max })
    const factory = await createEntityManagerFactory<DB>({
      client: app.client,
      db: appKysely<DB>(app),
      pipeline,
      versionColumn: 'version',
    })
    return new FlushMeter(factory, app.counter, () => {})
  }

  test('a transfer updates both accounts and adds a ledger row; overdrafts are refused', async () => {
    await resetData(admin)
    const factory = await factoryOn(2)
    await openAccounts(factory, '1000.00')
    const ok = await transfer(factory, { from: '42', to: '314', amount: '100.00' })
    expect(ok).toMatchObject({ ok: true, attempts: 1, report: { updated: 2, inserted: 1, mode: pipeline } })
    // Flushed alone on the pool: the report's round trips are the socket's.
    if (ok.ok) expect(factory.of(ok.report)?.socketRoundTrips).toBe(ok.report.roundTrips)
    const refused = await transfer(factory, { from: '42', to: '314', amount: '900.01' })
    expect(refused).toMatchObject({ ok: false, code: 'INSUFFICIENT_FUNDS' })
    const accounts =
      await db.sql`select id, amount::text, version from account where id in (42, 314) order by id`
    expect(accounts).toEqual([
      { id: '42', amount: '900.00', version: 2 },
      { id: '314', amount: '1100.00', version: 2 },
    ])
    expect(await db.sql`select from_account, to_account, amount::text from ledger`).toEqual([
      { from_account: '42', to_account: '314', amount: '100.00' },
    ])
  })

  test('a stale transfer fails with OPTIMISTIC_LOCK and writes nothing; retried, it commits', async () => {
    await resetData(admin)
    const factory = await factoryOn(2)
    await openAccounts(factory, '1000.00')
    const demo = await staleTransfer(factory)
    expect(demo.stale.code).toBe('OPTIMISTIC_LOCK')
    expect(demo.other.ok).toBe(true)
    expect(demo.retried).toMatchObject({ ok: true, attempts: 1 })
    const rows = await db.sql`select id, amount::text from account where id in (42, 314, 1000) order by id`
    expect(rows.map((r) => `${r['id']}=${r['amount']}`)).toEqual(['42=895.00', '314=1100.00', '1000=1005.00'])
    expect((await db.sql`select count(*)::int as n from ledger`)[0]?.['n']).toBe(2)
    await ledgerExplainsBalances('1000.00')
    expect(factory.mismatches).toEqual([])
  })

  test('60 concurrent transfers on a pool of 10: total unchanged, stale ones reported, none lost', async () => {
    await resetData(admin)
    const factory = await factoryOn(10)
    await openAccounts(factory, '1000.00')
    const committed: number[] = []
    for (const retries of [0, 10]) {
      const run = await concurrentTransfers(factory, 60, { retries, backoffMs: 10, seed: 11 + retries })
      const failed = Object.values(run.failed).reduce((a, b) => a + b, 0)
      expect(run.succeeded + failed).toBe(60)
      expect(run.totalAfter).toBe(run.totalBefore)
      expect(run.ledgerRowsAdded).toBe(run.succeeded)
      // Conflicts only: a stale read, or (rarely, under load) a deadlock the server broke.
      const conflicts = ['OPTIMISTIC_LOCK', 'DEADLOCK_DETECTED']
      expect(
        Object.keys(run.failed).every((code) => conflicts.includes(code)),
        JSON.stringify({ failed: run.failed, messages: run.firstMessages }),
      ).toBe(true)
      expect(run.succeeded).toBeGreaterThan(0)
      if (retries === 0) expect(run.failed['OPTIMISTIC_LOCK']).toBeGreaterThan(0)
      committed.push(run.succeeded)
      await ledgerExplainsBalances('1000.00')
    }
    // Retried, stale transfers reread and commit.
    expect(committed[1]).toBeGreaterThan(committed[0]!)
  })
})
