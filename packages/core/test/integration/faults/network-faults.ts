import {
  EntityManager,
  type ErrorCode,
  type FlushReport,
  isPipeflushError,
  type PipeflushError,
} from '@pipeflush/core'
import type { DriverName, TestDatabase } from '@pipeflush/testkit/vitest'
import type postgres from 'postgres'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { type Outcome, SCENARIOS, type Scenario, type Variant } from './network-scenarios.ts'
import { FLUSH_LOG, makeUnit, NETWORK_DDL, stateOf, type Unit } from './network-unit.ts'
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
import { openTrackedClient, type TrackedClient } from './tracked-client.ts'

/** The flush timeout of the entity managers under test, unless a scenario sets one. */
const FLUSH_TIMEOUT_MS = 5000
/** Seconds a connection may take to open (a flush that cannot get one fails after this). */
const CONNECT_TIMEOUT_S = 2

/** Variants that run the scenarios whose names start with one of `only` (all when left out). */
export interface VariantGroup {
  readonly variants: readonly Variant[]
  readonly only?: readonly string[]
}

/**
 * Defines the network fault tests of each variant on `db` (a database and proxy of the calling file):
 * each scenario checks that the flush settles within a bounded time with the expected error, that the
 * database holds all of the flush or none of it (and that the flush log agrees), that the process saw
 * no uncaught exception or unhandled rejection, that the pool is usable afterwards, that the entity
 * manager still holds its changes and that a retry after the fault succeeds. A flush that succeeds
 * reports the round trips counted at the socket.
 */
export function defineNetworkFaults(db: TestDatabase, groups: readonly VariantGroup[]): void {
  const checkers = new Map<DriverName, Promise<EntityManager>>()
  const opened: TrackedClient[] = []
  beforeAll(async () => {
    await db.sql.unsafe(NETWORK_DDL)
  })
  afterEach(async () => {
    await db.proxy.clearToxics()
  })
  afterAll(async () => {
    await Promise.all(opened.map((c) => c.end()))
  })
  /** An entity manager of the variant's driver, connected directly (no proxy), that asks the flush log. */
  const checkerFor = (driver: DriverName) => {
    let checker = checkers.get(driver)
    if (!checker) {
      const c = openTrackedClient(driver, db.url, { max: 2 })
      opened.push(c)
      checker = EntityManager.connect(c.client, { flushLog: FLUSH_LOG, versionColumn: 'version' })
      checkers.set(driver, checker)
    }
    return checker
  }

  for (const { variant, only } of groups.flatMap((g) =>
    g.variants.map((variant) => ({ variant, only: g.only })),
  )) {
    describe(labelOf(variant), () => {
      for (const scenario of SCENARIOS) {
        if (only && !only.some((o) => scenario.name.startsWith(o))) continue
        const outcome = scenario.expect(variant)
        test(titleOf(scenario, outcome), async () => {
          const c = openTrackedClient(variant.driver, db.proxiedUrl, {
            max: 1,
            connectTimeoutSeconds: CONNECT_TIMEOUT_S,
            ...(variant.prepare === false && variant.driver === 'postgres.js' ? { prepare: false } : {}),
          })
          try {
            await runScenario({
              db,
              variant,
              scenario,
              outcome,
              client: c,
              checker: await checkerFor(variant.driver),
            })
          } finally {
            await c.end()
          }
        })
      }
    })
  }
}

function labelOf(v: Variant): string {
  const connection = v.warm ? 'a warm connection' : 'a connection opened by the flush'
  const prepare =
    v.prepare === false
      ? v.driver === 'postgres.js'
        ? ', client made with prepare: false'
        : ', prepare: false'
      : ''
  return `${v.driver}: ${v.mode}, ${connection}${prepare}`
}

function titleOf(scenario: Scenario, outcome: Outcome): string {
  if ('ok' in outcome) return `${scenario.name}: all committed`
  const committed =
    outcome.committed === 'either'
      ? 'all or none (as the flush log says)'
      : outcome.committed
        ? 'all committed'
        : 'none committed'
  return `${scenario.name}: ${outcome.code}, ${committed}`
}

interface Run {
  readonly db: TestDatabase
  readonly variant: Variant
  readonly scenario: Scenario
  readonly outcome: Outcome
  readonly client: TrackedClient
  readonly checker: EntityManager
}

async function runScenario(run: Run): Promise<void> {
  const { db, variant, client } = run
  const root = await EntityManager.connect(client.client, {
    pipeline: variant.mode,
    versionColumn: 'version',
    flushLog: FLUSH_LOG,
    flushTimeoutMs: FLUSH_TIMEOUT_MS,
    idBlockSize: 200,
    ...(variant.prepare === false && variant.driver !== 'postgres.js' ? { prepare: false } : {}),
  })
  if (variant.warm) await warmUp(run, root)
  const watch = watchProcess()
  try {
    const em = root.fork(
      run.scenario.timeoutMs === undefined ? {} : { flushTimeoutMs: run.scenario.timeoutMs },
    )
    const unit = await makeUnit(em, db.sql, run.scenario.unit ?? {})
    if (!variant.warm) await client.closeAll()
    await withRowLock(db.sql, run.scenario.rowLock === true, (unblock) => runFlush(run, unit, unblock))
    await watch.assertClean()
  } finally {
    watch.dispose()
  }
}

/**
 * A flush of the statement shapes of the scenarios (for pg, named statements get prepared), then a
 * second one, counted: the connection is open and known, so a burst costs one round trip.
 */
async function warmUp(run: Run, root: EntityManager): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const em = root.fork()
    await makeUnit(em, run.db.sql, { slowMs: 0, slowCommitMs: 0 })
    run.client.counter.reset()
    const report = await em.flush()
    expect(run.client.counter.read().roundTrips, 'round trips counted at the socket').toBe(report.roundTrips)
    if (i === 1) {
      expect(report.connected).toBe(false)
      if (run.variant.mode === 'burst') expect(report.roundTrips).toBe(1)
    }
  }
}

/** Runs `body` while another transaction holds the counter row (when `locked`), released by `unblock` or at the end. */
async function withRowLock(
  direct: postgres.Sql,
  locked: boolean,
  body: (unblock: () => Promise<void>) => Promise<void>,
): Promise<void> {
  let blocker: postgres.ReservedSql | undefined
  if (locked) {
    blocker = await direct.reserve()
    await blocker`begin`
    await blocker`select n from counter where id = 1 for update`
  }
  const unblock = async () => {
    if (!blocker) return
    const b = blocker
    blocker = undefined
    await b`commit`
    b.release()
  }
  try {
    await body(unblock)
  } finally {
    await unblock()
  }
}

async function runFlush(run: Run, unit: Unit, unblock: () => Promise<void>): Promise<void> {
  const { db, scenario, outcome, client, checker } = run
  const pendingBefore = unit.em.pending
  await scenario.before?.(db)
  client.counter.reset()
  const flush = unit.em.flush()
  flush.catch(() => {})
  if (scenario.during) {
    await waitForSleepingBackend(db.sql)
    await scenario.during(db)
  }
  const settled = await settleWithin(flush, (scenario.timeoutMs ?? FLUSH_TIMEOUT_MS) + 5000)

  if ('ok' in outcome) {
    expect(settled.error, 'the flush should succeed').toBeUndefined()
    const report = settled.value as FlushReport
    expect(client.counter.read().roundTrips, 'round trips counted at the socket').toBe(report.roundTrips)
    expect(report.connected).toBe(!run.variant.warm)
    await db.proxy.clearToxics()
    expect(await stateOf(db.sql, unit)).toBe('all')
    await expectPoolFree(client, 1)
    return
  }

  const error = expectError(settled, outcome.code)
  if (scenario.serverEndsWhileFaulty) await waitForNoOpenTransaction(db.sql)
  if (!scenario.checkWhileFaulty) await db.proxy.clearToxics()
  let committed: boolean | undefined
  if (outcome.code === 'COMMIT_OUTCOME_UNKNOWN') {
    // The cancel sent at the deadline goes on a connection of its own, and on a loaded machine can
    // reach the server after the flush reported: its backend is let wait for it (bounded), or the
    // lock freed below would let the flush commit, which the flush log would rightly say.
    if (scenario.rowLock) await waitForLockWaiters(db.sql, 0, 5000, 'at most').catch(() => {})
    const answer = checker.wasCommitted(error.flushId!)
    if (scenario.rowLock) {
      // Were the flush's backend still waiting on the lock, the check would wait behind its
      // uncommitted log row (then freeing the flush lets it answer); its backend cancelled at the
      // deadline, the check answers at once.
      const first = await Promise.race([
        answer.then(() => 'answered'),
        waitForLockWaiters(db.sql, 2).then(
          () => 'waiting',
          () => 'answered',
        ),
      ])
      if (first === 'waiting') await unblock()
    }
    committed = await answer
    if (outcome.committed !== 'either') expect(committed).toBe(outcome.committed)
  }
  await db.proxy.clearToxics() // may deliver bytes still held by the toxic: late, and fenced
  await unblock()
  if (scenario.lateMs) await sleep(scenario.lateMs)
  await waitForQuietDatabase(db.sql)
  const state = await stateOf(db.sql, unit)
  expect(state).toBe((committed ?? outcome.committed) ? 'all' : 'none')
  // Asking again gives the same answer (the check is stable, and fenced).
  if (committed !== undefined) expect(await checker.wasCommitted(error.flushId!)).toBe(committed)

  // The pool is whole, the entity manager still holds the changes, and a retry works.
  await expectPoolFree(client, 1)
  expect(unit.em.pending).toEqual(pendingBefore)
  expect(unit.em.stateOf(unit.firstItem)).toBe('new')
  await retry(db, unit, state)
}

async function retry(db: TestDatabase, unit: Unit, state: string): Promise<void> {
  const again = await settleWithin(unit.em.flush(), 10_000, 'the retry')
  if (state === 'none') {
    expect(again.error, 'the retry should succeed').toBeUndefined()
    expect((again.value as FlushReport).inserted).toBe(unit.rows)
    expect(await stateOf(db.sql, unit)).toBe('all')
    expect(unit.em.pending).toEqual({ inserts: 0, updates: 0, deletes: 0, upserts: 0 })
  } else {
    // The flush did commit: a blind retry fails on its own keys (ids stay assigned) and changes nothing.
    expect(
      isPipeflushError(again.error, 'CONSTRAINT_VIOLATION') ||
        isPipeflushError(again.error, 'OPTIMISTIC_LOCK'),
      String(again.error),
    ).toBe(true)
    expect(await stateOf(db.sql, unit)).toBe('all')
  }
}

function expectError(settled: Settled<unknown>, code: ErrorCode): PipeflushError {
  expect(settled.ok, 'the flush should fail').toBe(false)
  const error = settled.error
  if (!isPipeflushError(error))
    throw new Error(`not a PipeflushError: ${String((error as Error)?.stack ?? error)}`)
  expect(`${error.code}: ${error.message}`).toMatch(new RegExp(`^${code}: `))
  expect(error.message.length).toBeGreaterThan(20)
  expect(error.flushId).toMatch(/^[0-9a-f-]{36}$/)
  return error
}
