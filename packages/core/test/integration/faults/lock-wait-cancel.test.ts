import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { createRoundTripCounter, openClient, type TestClient } from '@pipeflush/testkit'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { sleep, waitForLockWaiters, waitUntil } from './support.ts'

// A flush given up at its deadline while its statements wait on a lock another session holds: closing
// the socket alone left its backend waiting (a backend notices a closed client only when it next
// reads or writes), holding its locks and a connection slot, to commit once the lock went. Under load
// the given-up flushes' backends piled up until the server refused every connection (found by an
// outside probe: 71 to 95 backends for a pool of 4). The deadline now cancels the backend first.
const db = useTestDatabase()
const clients: TestClient[] = []
let direct: postgres.Sql

beforeAll(async () => {
  await db.sql.unsafe(
    'create table lw_item (id int primary key, n int not null); insert into lw_item values (1, 0)',
  )
  direct = postgres(db.url, { max: 2, onnotice: () => {} })
})

afterAll(async () => {
  await Promise.all(clients.map((c) => c.end()))
  await direct.end({ timeout: 1 })
})

/** Backends of `name` (its application_name) that are not idle: running, or waiting on a lock. */
async function busy(name: string): Promise<number> {
  const [row] = await direct<{ n: number }[]>`
    select count(*)::int as n from pg_stat_activity where application_name = ${name} and state <> 'idle'`
  return row?.n ?? 0
}

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test('flushes given up at their deadline while waiting on a lock leave no backend behind; none commits late', async () => {
    const name = `lw_${driver.replace('.', '')}`
    const c = openClient(driver, db.url, createRoundTripCounter(), {
      max: 2,
      postgresJs: { connection: { application_name: name } },
      pg: { application_name: name },
    })
    clients.push(c)
    const root = await EntityManager.connect(c.client, { flushTimeoutMs: 800 })
    const [loaded] = await root.fork().find('lw_item', { id: 1 })
    expect(loaded).toBeDefined()
    const holder = await direct.reserve()
    try {
      await holder.unsafe('begin; lock table lw_item in access exclusive mode')
      const flushes = Array.from({ length: 4 }, async (_, i) => {
        const em = root.fork()
        const [row] = await em.find('lw_item', { id: 1 }).catch(() => [undefined])
        if (row === undefined) {
          em.create('lw_item', { id: 100 + i, n: i })
        } else row['n'] = 10 + i
        return em.flush().then(
          () => 'committed',
          (e: unknown) => (isPipeflushError(e) ? e.code : String(e)),
        )
      })
      await waitForLockWaiters(direct, 1)
      const outcomes = await Promise.all(flushes)
      for (const outcome of outcomes)
        expect(['FLUSH_TIMEOUT', 'COMMIT_OUTCOME_UNKNOWN', 'QUERY_TIMEOUT']).toContain(outcome)
      // The lock still held: the given-up flushes' backends are gone, not waiting on it.
      await waitUntil(async () => (await busy(name)) === 0, 3000, 'the given-up backends to stop')
    } finally {
      await holder.unsafe('rollback').catch(() => {})
      holder.release()
    }
    await sleep(300)
    const [row] = await direct<{ n: number }[]>`select n from lw_item where id = 1`
    expect(row?.n).toBe(0) // nothing committed late
    const [made] = await direct<{ n: number }[]>`select count(*)::int as n from lw_item where id >= 100`
    expect(made?.n).toBe(0)
  }, 30_000)
})
