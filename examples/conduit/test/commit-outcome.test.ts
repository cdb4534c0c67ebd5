import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { afterEach, beforeAll, describe, expect, test } from 'vitest'
import { createSchema } from '../src/schema.ts'
import { register, send } from './support/api-client.ts'
import { conduitOn } from './support/conduit-under-test.ts'

// A request whose flush loses its connection after the COMMIT was sent: the flush cannot tell whether
// it committed (COMMIT_OUTCOME_UNKNOWN). Conduit asks the flush log before answering: a 500 for work
// that is stored would have the client retry it (a second registration refused as taken, a comment
// posted twice).
const db = useTestDatabase()

beforeAll(async () => {
  await createSchema((text) => db.sql.unsafe(text))
  // A registration of a user named `slow...` sleeps at its COMMIT: the connection is cut meanwhile.
  await db.sql.unsafe(`
    create function slow_commit() returns trigger language plpgsql as $$
    begin
      if new.username like 'slow%' then perform pg_sleep(0.5); end if;
      return null;
    end $$;
    create constraint trigger slow_commit after insert on app_user
      deferrable initially deferred for each row execute function slow_commit();
  `)
})

afterEach(() => db.proxy.clearToxics())

/** Waits until a backend sleeps in `pg_sleep` (the COMMIT's trigger): its process id. */
async function sleepingBackend(): Promise<number> {
  for (let i = 0; i < 1000; i++) {
    const [row] =
      await db.sql`select pid from pg_stat_activity where datname = current_database() and wait_event = 'PgSleep'`
    if (row) return row['pid'] as number
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error('no backend slept at the COMMIT')
}

/** Waits until the backend `pid` is gone. */
async function gone(pid: number): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    const [row] = await db.sql`select count(*)::int as n from pg_stat_activity where pid = ${pid}`
    if (row!['n'] === 0) return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error(`backend ${pid} still there`)
}

describe.each(TEST_DRIVERS)('%s: a flush whose outcome is unknown', (driver) => {
  test.each(['committed', 'not committed'] as const)(
    'a registration whose connection was cut after its COMMIT was sent (%s) answers 201 once, and the user can sign in',
    async (outcome) => {
      const conduit = await conduitOn(db, driver, 'pipeflush', 1)
      try {
        await register(conduit.apiUrl, 'warm') // the connection open, the ids fetched
        const username = `slow-${driver.replace('.', '')}-${outcome.replace(' ', '-')}`
        const email = `${username}@example.com`
        const answer = send(conduit.apiUrl, 'POST', '/users', {
          body: { user: { username, email, password: 'secret-1' } },
        })
        const pid = await sleepingBackend()
        if (outcome === 'committed') {
          // The network cuts the connection as the COMMIT's answer comes: the server committed. Cut
          // for as long as that backend is there, so the flush's connection is the one cut.
          await db.proxy.addToxic('reset_peer', { timeout: 0 }, { stream: 'downstream' })
          await gone(pid)
          await db.proxy.clearToxics()
        } else {
          // The backend is ended while its COMMIT runs: nothing committed, and the request flushes again.
          await db.sql`select pg_terminate_backend(${pid})`
        }
        const { status, body } = await answer
        expect({ status, username: body?.user?.username }).toEqual({ status: 201, username })
        const stored = await db.sql`select count(*)::int as n from app_user where username = ${username}`
        expect(stored[0]!['n']).toBe(1)
        const login = await send(conduit.apiUrl, 'POST', '/users/login', {
          body: { user: { email, password: 'secret-1' } },
        })
        expect(login.status).toBe(200)
      } finally {
        await conduit.close()
      }
    },
  )
})
