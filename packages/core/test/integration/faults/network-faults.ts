import { randomUUID } from 'node:crypto'
import {
  type Entity,
  EntityManager,
  type ErrorCode,
  type FlushReport,
  isPipeflushError,
  type PipeflushError,
  type PipelineMode,
} from '@pipeflush/core'
import type { TestDatabase } from '@pipeflush/testkit/vitest'
import type postgres from 'postgres'
import { afterEach, beforeAll, describe, expect, test } from 'vitest'
import { beginSql } from '../../../src/execute/flush-log.ts'
import {
  expectPoolFree,
  type Settled,
  settleWithin,
  sleep,
  waitForLockWaiters,
  waitForNoOpenTransaction,
  waitForQuietDatabase,
  waitForSleepingBackend,
  watchProcess,
} from './support.ts'

/** How the flushes under test are sent. */
export interface Variant {
  readonly mode: PipelineMode
  /** Named prepared statements (false: a client made with `prepare: false`, simple protocol). */
  readonly prepare: boolean
  /** Statements already prepared on the connection before the faulty flush. */
  readonly warm: boolean
}

export const FLUSH_LOG = 'pipeflush_flush_log'

const DDL = `
create table ${FLUSH_LOG} (flush_id uuid primary key, committed boolean not null, at timestamptz not null default now());
create table counter (id int primary key, n int not null, version int not null default 1);
insert into counter values (1, 0, 1);
create table item (id bigserial primary key, batch text not null, n int not null);
create table note (id bigserial primary key, batch text not null, body text not null);
-- A row of "slow" sleeps in its insert; a row of "slow_commit" sleeps at COMMIT (deferred trigger):
-- the test adds its toxic while the server sleeps, so the fault hits a known point of the flush.
create table slow (id bigserial primary key, batch text not null, ms int not null);
create function slow_sleep() returns trigger language plpgsql as $$
  begin perform pg_sleep(new.ms / 1000.0); return new; end $$;
create trigger slow_sleep before insert on slow for each row execute function slow_sleep();
create table slow_commit (id bigserial primary key, batch text not null, ms int not null);
create function commit_sleep() returns trigger language plpgsql as $$
  begin perform pg_sleep(new.ms / 1000.0); return null; end $$;
create constraint trigger commit_sleep after insert on slow_commit deferrable initially deferred
  for each row execute function commit_sleep();
`

/** What a fault must end in, per mode. */
type Outcome =
  /** The flush succeeds and everything is committed. */
  | { readonly ok: true }
  /** The flush fails with `code`; the database holds none of it. */
  | { readonly code: ErrorCode; readonly committed: false }
  /** COMMIT_OUTCOME_UNKNOWN; the flush log says committed (true) or not, or either (checked consistent). */
  | { readonly code: 'COMMIT_OUTCOME_UNKNOWN'; readonly committed: boolean | 'either' }

interface UnitOptions {
  /** A row whose insert sleeps this long on the server. */
  readonly slowMs?: number
  /** A row whose COMMIT sleeps this long on the server. */
  readonly slowCommitMs?: number
  /** Notes to add, and their size. */
  readonly notes?: number
  readonly noteBytes?: number
  /** New items take their ids from the sequence (an id fetch) instead of explicit ids. */
  readonly sequenceIds?: boolean
}

/** One flush's worth of changes, tagged so that the test can count what reached the database. */
interface Unit {
  readonly em: EntityManager
  readonly tag: string
  readonly rows: number
  readonly counterBefore: number
}

interface Scenario {
  readonly name: string
  readonly unit?: UnitOptions
  /** Entity manager's flush timeout for this scenario. */
  readonly timeoutMs?: number
  /** Toxics added before the flush starts. */
  readonly before?: (db: TestDatabase) => Promise<void>
  /** Toxics added while the flush runs (after the server started sleeping). */
  readonly during?: (db: TestDatabase) => Promise<void>
  /** Uses a new client whose id pool is empty, so the flush starts with an id fetch. */
  readonly freshIds?: boolean
  readonly expect: (v: Variant) => Outcome
  /** Waits this long after the flush settled before checking (late deliveries). */
  readonly lateMs?: number
  /**
   * Checks, while the toxic is still on, that the server-side transaction ended: the connection was
   * terminated (otherwise the backend would stay idle in transaction, holding its locks).
   */
  readonly serverEndsWhileFaulty?: boolean
  /**
   * Asks the flush log at once, while the toxic still holds the flush's bytes: clearing the toxic may
   * deliver them late, and the check must have fenced that late COMMIT.
   */
  readonly checkWhileFaulty?: boolean
  /**
   * Another transaction holds a lock on the counter row the flush updates, so the flush waits on the
   * server past its timeout; the lock is released after the flush failed (and, for an unknown outcome,
   * once the flush log check is waiting too).
   */
  readonly rowLock?: boolean
}

const burst = (v: Variant) => v.mode === 'burst'

/** Bytes of the simple-protocol message that opens a flush's transaction (with the flush log insert). */
const BEGIN_BYTES = 1 + 4 + Buffer.byteLength(beginSql(`"${FLUSH_LOG}"`, randomUUID())) + 1

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'reset_peer while a statement runs, before the COMMIT is sent',
    unit: { slowMs: 400 },
    during: async (db) => {
      await db.proxy.addToxic('reset_peer', { timeout: 0 }, { stream: 'downstream' })
    },
    // burst: the COMMIT left with the statements; the server runs it after the sleep.
    expect: (v) =>
      burst(v)
        ? { code: 'COMMIT_OUTCOME_UNKNOWN', committed: 'either' }
        : { code: 'CONNECTION_LOST', committed: false },
  },
  {
    name: 'reset_peer on the first byte the flush sends (nothing reaches the server)',
    before: async (db) => {
      await db.proxy.addToxic('reset_peer', { timeout: 0 }, { stream: 'upstream' })
    },
    expect: (v) =>
      burst(v)
        ? { code: 'COMMIT_OUTCOME_UNKNOWN', committed: false }
        : { code: 'CONNECTION_LOST', committed: false },
  },
  {
    name: 'reset_peer during the id fetch, before the transaction',
    freshIds: true,
    unit: { sequenceIds: true },
    before: async (db) => {
      await db.proxy.addToxic('reset_peer', { timeout: 0 }, { stream: 'upstream' })
    },
    expect: () => ({ code: 'CONNECTION_LOST', committed: false }),
  },
  {
    name: 'a stalled connection (timeout toxic) against flushTimeoutMs',
    timeoutMs: 400,
    before: async (db) => {
      await db.proxy.addToxic('timeout', { timeout: 0 }, { stream: 'upstream' })
    },
    expect: (v) =>
      burst(v)
        ? { code: 'COMMIT_OUTCOME_UNKNOWN', committed: false }
        : { code: 'FLUSH_TIMEOUT', committed: false },
  },
  {
    name: 'the connection is lost after the COMMIT was sent, before its answer (reset_peer)',
    unit: { slowCommitMs: 400 },
    during: async (db) => {
      await db.proxy.addToxic('reset_peer', { timeout: 0 }, { stream: 'downstream' })
    },
    expect: () => ({ code: 'COMMIT_OUTCOME_UNKNOWN', committed: true }),
  },
  {
    name: "the connection stalls after the COMMIT was sent (downstream timeout toxic): the COMMIT's answer never comes",
    unit: { slowCommitMs: 200 },
    timeoutMs: 800,
    during: async (db) => {
      await db.proxy.addToxic('timeout', { timeout: 0 }, { stream: 'downstream' })
    },
    expect: () => ({ code: 'COMMIT_OUTCOME_UNKNOWN', committed: true }),
  },
  {
    name: 'limit_data cuts the stream just past BEGIN',
    before: async (db) => {
      await db.proxy.addToxic('limit_data', { bytes: BEGIN_BYTES + 24 }, { stream: 'upstream' })
    },
    expect: (v) =>
      burst(v)
        ? { code: 'COMMIT_OUTCOME_UNKNOWN', committed: false }
        : { code: 'CONNECTION_LOST', committed: false },
  },
  {
    name: 'latency spikes (150 ms +- 100 down, 40 ms up): the flush succeeds',
    before: async (db) => {
      await db.proxy.setLatency(150, { jitter: 100 })
      await db.proxy.setLatency(40, { stream: 'upstream' })
    },
    expect: () => ({ ok: true }),
  },
  {
    name: 'a latency spike beyond flushTimeoutMs',
    timeoutMs: 400,
    before: async (db) => {
      await db.proxy.setLatency(900)
    },
    // burst: everything reached the server at once; only the answers are late.
    expect: (v) =>
      burst(v)
        ? { code: 'COMMIT_OUTCOME_UNKNOWN', committed: 'either' }
        : { code: 'FLUSH_TIMEOUT', committed: false },
  },
  {
    name: 'a bandwidth limit (64 KB/s up, ~40 KB flushed): the flush succeeds',
    unit: { notes: 20, noteBytes: 2000 },
    before: async (db) => {
      await db.proxy.addToxic('bandwidth', { rate: 64 }, { stream: 'upstream' })
    },
    expect: () => ({ ok: true }),
  },
  {
    name: 'the flush gives up while its bytes are still on the way (600 ms upstream latency); the flush log check fences a late delivery',
    timeoutMs: 250,
    lateMs: 900,
    checkWhileFaulty: true,
    before: async (db) => {
      await db.proxy.setLatency(600, { stream: 'upstream' })
    },
    expect: (v) =>
      burst(v)
        ? { code: 'COMMIT_OUTCOME_UNKNOWN', committed: false }
        : { code: 'FLUSH_TIMEOUT', committed: false },
  },
  {
    name: 'a stall after the server received the request (downstream timeout toxic): the connection is terminated and the server-side transaction ends at once',
    timeoutMs: 400,
    serverEndsWhileFaulty: true,
    before: async (db) => {
      await db.proxy.addToxic('timeout', { timeout: 0 }, { stream: 'downstream' })
    },
    // burst: the server ran everything, COMMIT included; only the answers are lost.
    expect: (v) =>
      burst(v)
        ? { code: 'COMMIT_OUTCOME_UNKNOWN', committed: true }
        : { code: 'FLUSH_TIMEOUT', committed: false },
  },
  {
    name: 'a flush blocked on a row lock outlives flushTimeoutMs; the server runs the rest once the lock is free (the flush log check waits for it)',
    timeoutMs: 400,
    rowLock: true,
    // burst: the COMMIT is already in the server's input, behind the blocked statement.
    expect: (v) =>
      burst(v)
        ? { code: 'COMMIT_OUTCOME_UNKNOWN', committed: true }
        : { code: 'FLUSH_TIMEOUT', committed: false },
  },
]

let nextId = 1_000_000 + Math.floor(Math.random() * 1000) * 100_000

/**
 * Defines the network fault tests of `variant` on `db` (a database and proxy of the calling file):
 * each scenario checks that the flush settles within a bounded time with the expected error, that
 * the database holds all of the flush or none of it (and what the flush log says agrees), that the
 * process saw no uncaught exception or unhandled rejection, that no connection is left reserved, that
 * the entity manager still holds its changes and that a retry after the fault succeeds.
 */
export function defineNetworkFaults(
  db: TestDatabase,
  variants: readonly Variant[],
  only?: readonly string[],
): void {
  beforeAll(async () => {
    await db.sql.unsafe(DDL)
  })
  afterEach(async () => {
    await db.proxy.clearToxics()
  })

  for (const variant of variants) {
    const label = `${variant.mode}${variant.prepare ? '' : ', prepare: false'}${variant.warm ? ', warm' : ', cold'}`
    describe(label, () => {
      for (const scenario of SCENARIOS) {
        if (only && !only.some((o) => scenario.name.startsWith(o))) continue
        const outcome = scenario.expect(variant)
        const title =
          'ok' in outcome
            ? `${scenario.name}: all committed`
            : `${scenario.name}: ${outcome.code}, ${outcome.committed === 'either' ? 'all or none (as the flush log says)' : outcome.committed ? 'all committed' : 'none committed'}`
        test(title, () => runScenario(db, variant, scenario, outcome))
      }
    })
  }
}

async function connectClient(db: TestDatabase, variant: Variant) {
  const { sql } = db.connect({ max: 1, ...(variant.prepare ? {} : { prepare: false }) })
  const root = await EntityManager.connect(sql, {
    pipeline: variant.mode,
    versionColumn: 'version',
    flushLog: FLUSH_LOG,
    flushTimeoutMs: 5000,
    idBlockSize: 200,
  })
  return { sql, root }
}

async function runScenario(db: TestDatabase, variant: Variant, scenario: Scenario, outcome: Outcome) {
  const { sql, root } = await connectClient(db, variant)
  if (variant.warm) await warmUp(root, variant)
  const checker = await EntityManager.connect(db.sql, { flushLog: FLUSH_LOG, versionColumn: 'version' })
  const watch = watchProcess()
  try {
    await runWatched(db, scenario, outcome, sql, root, checker)
    await watch.assertClean()
  } finally {
    watch.dispose()
  }
}

async function runWatched(
  db: TestDatabase,
  scenario: Scenario,
  outcome: Outcome,
  sql: postgres.Sql,
  root: EntityManager,
  checker: EntityManager,
) {
  const em = root.fork(scenario.timeoutMs === undefined ? {} : { flushTimeoutMs: scenario.timeoutMs })
  const unit = await makeUnit(em, scenario.unit ?? {})
  const pendingBefore = em.pending
  await scenario.before?.(db)
  let blocker: postgres.ReservedSql | undefined
  if (scenario.rowLock) {
    blocker = await db.sql.reserve()
    await blocker`begin`
    await blocker`select n from counter where id = 1 for update`
  }
  const unblock = async () => {
    if (!blocker) return
    await blocker`commit`
    blocker.release()
    blocker = undefined
  }
  try {
    await runFlush(db, scenario, outcome, sql, checker, em, unit, pendingBefore, unblock)
  } finally {
    await unblock()
  }
}

async function runFlush(
  db: TestDatabase,
  scenario: Scenario,
  outcome: Outcome,
  sql: postgres.Sql,
  checker: EntityManager,
  em: EntityManager,
  unit: Unit & { firstItem: Entity },
  pendingBefore: EntityManager['pending'],
  unblock: () => Promise<void>,
) {
  const flush = em.flush()
  flush.catch(() => {})
  if (scenario.during) {
    await waitForSleepingBackend(db.sql)
    await scenario.during(db)
  }
  const limit = (scenario.timeoutMs ?? 5000) + 5000
  const settled = await settleWithin(flush, limit)

  if ('ok' in outcome) {
    expect(settled.error, 'the flush should succeed').toBeUndefined()
    await db.proxy.clearToxics()
    expect(await stateOf(db.sql, unit)).toBe('all')
    await expectPoolFree(sql, 1)
    return
  }

  const error = expectError(settled, outcome.code)
  expect(error.flushId).toBe(errorFlushId(error))
  if (scenario.serverEndsWhileFaulty) await waitForNoOpenTransaction(db.sql)
  if (!scenario.checkWhileFaulty) await db.proxy.clearToxics()
  let committed: boolean | undefined
  if (outcome.code === 'COMMIT_OUTCOME_UNKNOWN') {
    const answer = checker.wasCommitted(error.flushId!)
    if (scenario.rowLock) {
      // The check waits behind the flush's own uncommitted log row; free the flush, and it commits.
      await waitForLockWaiters(db.sql, 2)
      await unblock()
    }
    committed = await answer
    if (outcome.committed !== 'either') expect(committed).toBe(outcome.committed)
  }
  await db.proxy.clearToxics() // may deliver bytes still held by the toxic: late, and fenced
  await unblock()
  if (scenario.lateMs) await sleep(scenario.lateMs)
  await waitForQuietDatabase(db.sql)
  const state = await stateOf(db.sql, unit)
  const expected = committed ?? outcome.committed
  expect(state).toBe(expected ? 'all' : 'none')
  // Asking again gives the same answer (the check is stable, and fenced).
  if (committed !== undefined) expect(await checker.wasCommitted(error.flushId!)).toBe(committed)

  // The pool is whole, the entity manager still holds the changes, and a retry works.
  await expectPoolFree(sql, 1)
  expect(em.pending).toEqual(pendingBefore)
  expect(em.stateOf(unit.firstItem)).toBe('new')
  const retry = await settleWithin(em.flush(), 10_000, 'the retry')
  if (state === 'none') {
    expect(retry.error, 'the retry should succeed').toBeUndefined()
    expect((retry.value as FlushReport).inserted).toBe(unit.rows)
    expect(await stateOf(db.sql, unit)).toBe('all')
    expect(em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
  } else {
    // The flush did commit: a blind retry fails on its own keys (ids stay assigned) and changes nothing.
    expect(
      isPipeflushError(retry.error, 'CONSTRAINT_VIOLATION') ||
        isPipeflushError(retry.error, 'OPTIMISTIC_LOCK'),
    ).toBe(true)
    expect(await stateOf(db.sql, unit)).toBe('all')
  }
}

function errorFlushId(error: PipeflushError): string {
  expect(error.flushId).toMatch(/^[0-9a-f-]{36}$/)
  return error.flushId!
}

function expectError(settled: Settled<unknown>, code: ErrorCode): PipeflushError {
  expect(settled.ok, 'the flush should fail').toBe(false)
  const error = settled.error
  if (!isPipeflushError(error))
    throw new Error(`not a PipeflushError: ${String((error as Error)?.stack ?? error)}`)
  expect(`${error.code}: ${error.message}`).toMatch(new RegExp(`^${code}: `))
  expect(error.message.length).toBeGreaterThan(20)
  return error
}

/** Flushes every statement shape of the scenarios twice, so they are prepared on the connection. */
async function warmUp(root: EntityManager, variant: Variant): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const em = root.fork()
    await makeUnit(em, { slowMs: 0, slowCommitMs: 0 })
    const report = await em.flush()
    if (i === 1 && variant.prepare) expect(report.cold).toBe(false)
  }
}

async function makeUnit(em: EntityManager, o: UnitOptions): Promise<Unit & { firstItem: Entity }> {
  const tag = randomUUID().slice(0, 8)
  const [counter] = await em.find('counter', { id: 1 })
  const counterBefore = Number(counter!['n'])
  counter!['n'] = counterBefore + 1
  const id = () => (o.sequenceIds ? {} : { id: nextId++ })
  let rows = 0
  let firstItem: Entity | undefined
  for (let n = 0; n < 3; n++, rows++) {
    const item = em.create('item', { ...id(), batch: tag, n })
    firstItem ??= item
  }
  for (let n = 0; n < (o.notes ?? 2); n++, rows++) {
    em.create('note', { id: nextId++, batch: tag, body: `${n}:`.padEnd(o.noteBytes ?? 50, 'x') })
  }
  if (o.slowMs !== undefined) {
    em.create('slow', { id: nextId++, batch: tag, ms: o.slowMs })
    rows++
  }
  if (o.slowCommitMs !== undefined) {
    em.create('slow_commit', { id: nextId++, batch: tag, ms: o.slowCommitMs })
    rows++
  }
  return { em, tag, rows, counterBefore, firstItem: firstItem! }
}

/** 'all' when every row of the unit and its counter increment are in the database, 'none' when none is. */
async function stateOf(direct: postgres.Sql, unit: Unit): Promise<'all' | 'none' | string> {
  const [row] = await direct<{ rows: number; n: number }[]>`
    select (select count(*) from item where batch = ${unit.tag})
      + (select count(*) from note where batch = ${unit.tag})
      + (select count(*) from slow where batch = ${unit.tag})
      + (select count(*) from slow_commit where batch = ${unit.tag}) as rows,
      (select n from counter where id = 1) as n`
  const rows = Number(row!.rows)
  const n = Number(row!.n)
  if (rows === unit.rows && n === unit.counterBefore + 1) return 'all'
  if (rows === 0 && n === unit.counterBefore) return 'none'
  return `partial: ${rows} of ${unit.rows} rows, counter ${n} (was ${unit.counterBefore})`
}
