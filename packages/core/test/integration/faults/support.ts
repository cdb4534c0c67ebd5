import type { TestClient } from '@pipeflush/testkit'
import type pg from 'pg'
import type postgres from 'postgres'
import { expect } from 'vitest'

/** Uncaught exceptions and unhandled rejections seen while a test runs. */
export interface ProcessWatch {
  readonly events: { kind: string; error: unknown }[]
  /** Waits a little for late events, stops listening and asserts there were none. */
  assertClean(): Promise<void>
  /** Stops listening (idempotent). */
  dispose(): void
}

/**
 * Listens for `uncaughtException` and `unhandledRejection` on the process: a flush must never crash
 * it, whatever the network does.
 */
export function watchProcess(): ProcessWatch {
  const events: { kind: string; error: unknown }[] = []
  const onException = (error: unknown) => events.push({ kind: 'uncaughtException', error })
  const onRejection = (error: unknown) => events.push({ kind: 'unhandledRejection', error })
  process.on('uncaughtException', onException)
  process.on('unhandledRejection', onRejection)
  const dispose = () => {
    process.off('uncaughtException', onException)
    process.off('unhandledRejection', onRejection)
  }
  return {
    events,
    dispose,
    async assertClean() {
      await sleep(50) // timers and immediates of the failed connection run meanwhile
      dispose()
      expect(events.map((e) => `${e.kind}: ${String((e.error as Error)?.stack ?? e.error)}`)).toEqual([])
    },
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** What a promise settled to, and when. */
export interface Settled<T> {
  readonly ok: boolean
  readonly value?: T
  readonly error?: unknown
  readonly ms: number
}

/**
 * Waits for `p` at most `limitMs`: fails the test if it has not settled by then (a hang), else returns
 * how it settled and how long it took.
 */
export async function settleWithin<T>(
  p: Promise<T>,
  limitMs: number,
  what = 'the flush',
): Promise<Settled<T>> {
  const started = performance.now()
  let timer: NodeJS.Timeout | undefined
  const hang = new Promise<'hang'>((resolve) => {
    timer = setTimeout(() => resolve('hang'), limitMs)
  })
  const outcome = await Promise.race([
    p.then(
      (value) => ({ ok: true, value }),
      (error: unknown) => ({ ok: false, error }),
    ),
    hang,
  ])
  clearTimeout(timer)
  if (outcome === 'hang') throw new Error(`${what} did not settle within ${limitMs} ms`)
  return { ...outcome, ms: performance.now() - started }
}

/** Polls `check` every 20 ms until it returns true; fails after `limitMs`. */
export async function waitUntil(check: () => Promise<boolean>, limitMs: number, what: string): Promise<void> {
  const deadline = performance.now() + limitMs
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(20)
  }
}

/** Waits until a backend of the current database sleeps in pg_sleep (a trigger of the flush under test). */
export async function waitForSleepingBackend(direct: postgres.Sql, limitMs = 5000): Promise<void> {
  await waitUntil(
    async () => {
      const [row] = await direct<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event = 'PgSleep'`
      return (row?.n ?? 0) > 0
    },
    limitMs,
    'a backend sleeping in a trigger',
  )
}

/** Waits until no other backend of the current database is inside a transaction or running a query. */
export async function waitForQuietDatabase(direct: postgres.Sql, limitMs = 5000): Promise<void> {
  await waitUntil(
    async () => {
      const [row] = await direct<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle'`
      return (row?.n ?? 0) === 0
    },
    limitMs,
    'the other backends to finish',
  )
}

/** Waits until `n` backends of the current database (at least, or at most) wait for a lock. */
export async function waitForLockWaiters(
  direct: postgres.Sql,
  n: number,
  limitMs = 5000,
  bound: 'at least' | 'at most' = 'at least',
): Promise<void> {
  await waitUntil(
    async () => {
      const [row] = await direct<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`
      const waiting = row?.n ?? 0
      return bound === 'at least' ? waiting >= n : waiting <= n
    },
    limitMs,
    `${bound} ${n} backends waiting for a lock`,
  )
}

/** Waits until no backend of the current database is idle in a transaction (a terminated flush's is gone). */
export async function waitForNoOpenTransaction(direct: postgres.Sql, limitMs = 3000): Promise<void> {
  await waitUntil(
    async () => {
      const [row] = await direct<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and state like 'idle in transaction%'`
      return (row?.n ?? 0) === 0
    },
    limitMs,
    'the server-side transaction of the terminated flush to end',
  )
}

/**
 * `sql.reserve()`, asked again every 500 ms while unanswered (postgres.js 3.4.9 can drop a reservation
 * that waits while a connection closes; see pipeflush's own `reserve`). Extra answers are released.
 */
function reserveWithRetry(sql: postgres.Sql): Promise<postgres.ReservedSql> {
  return new Promise((resolve, reject) => {
    let done = false
    const ask = () => {
      sql.reserve().then(
        (r) => {
          if (done) return r.release()
          done = true
          clearInterval(timer)
          resolve(r)
        },
        (e: unknown) => {
          if (done) return
          done = true
          clearInterval(timer)
          reject(e)
        },
      )
    }
    const timer = setInterval(ask, 500)
    ask()
  })
}

/** A connection held out of the pool: it answers one query, then goes back. */
interface Held {
  query(text: string): Promise<unknown>
  release(): void
}

/** Takes one connection out of the pool of either driver (a postgres.js reservation, a pg checkout). */
async function hold(c: TestClient): Promise<Held> {
  if (c.driver === 'postgres.js') {
    const reserved = await reserveWithRetry(c.client as postgres.Sql)
    return { query: (text) => reserved.unsafe(text), release: () => reserved.release() }
  }
  const client = await (c.client as pg.Pool).connect()
  return { query: (text) => client.query(text), release: () => client.release() }
}

/**
 * Asserts that no connection of the pool is left reserved or stuck, for either driver: all `max`
 * connections can be taken out of the pool at once within `limitMs`, and each answers a query.
 */
export async function expectPoolFree(c: TestClient, max: number, limitMs = 5000): Promise<void> {
  const held = await settleWithin(
    Promise.all(Array.from({ length: max }, () => hold(c))),
    limitMs,
    `taking all ${max} connections of the ${c.driver} pool`,
  )
  expect(held.ok, String(held.error)).toBe(true)
  const connections = held.value!
  try {
    const answers = await settleWithin(
      Promise.all(connections.map((h) => h.query('select 1 as one'))),
      limitMs,
      'a query on every connection',
    )
    expect(answers.ok, String(answers.error)).toBe(true)
  } finally {
    for (const h of connections) h.release()
  }
}

/**
 * Whether another connection finds row `id` of `table` locked (`for update nowait` refused: 55P03).
 *
 * @example
 * expect(await rowLocked(db.sql, 'account', 1)).toBe(true)
 */
export async function rowLocked(direct: postgres.Sql, table: string, id: number): Promise<boolean> {
  try {
    await direct.begin(async (tx) => {
      await tx.unsafe(`select 1 from ${table} where id = ${id} for update nowait`)
    })
    return false
  } catch (e) {
    if ((e as { code?: string }).code === '55P03') return true
    throw e
  }
}
