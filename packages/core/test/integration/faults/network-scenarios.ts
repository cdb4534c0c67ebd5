import { randomUUID } from 'node:crypto'
import type { ErrorCode, PipelineMode } from '@pipeflush/core'
import type { DriverName, TestDatabase } from '@pipeflush/testkit/vitest'
import { flushLogInsert } from '../../../src/flush/flush-log.ts'
import { SEPARATOR } from '../../../src/flush/statement-text.ts'
import { FLUSH_LOG, type UnitOptions } from './network-unit.ts'

/** How the flushes under test are sent. */
export interface Variant {
  readonly driver: DriverName
  readonly mode: PipelineMode
  /**
   * true: the flush runs on a connection of the pool that is open and already flushed the same
   * statement shapes; false: the pool's connections are closed first, so the flush opens one.
   */
  readonly warm: boolean
  /**
   * false: the setting for transaction-mode poolers: a postgres.js client made with `prepare: false`,
   * or a pg pool's entity manager connected with `prepare: false` (unnamed statements).
   */
  readonly prepare?: false
}

/** What a fault must end in. */
export type Outcome =
  /** The flush succeeds and everything is committed. */
  | { readonly ok: true }
  /** The flush fails with `code`; the database holds none of it. */
  | { readonly code: ErrorCode; readonly committed: false }
  /** COMMIT_OUTCOME_UNKNOWN; the flush log says committed (true) or not, or either (checked consistent). */
  | { readonly code: 'COMMIT_OUTCOME_UNKNOWN'; readonly committed: boolean | 'either' }

export interface Scenario {
  readonly name: string
  readonly unit?: UnitOptions
  /** Entity manager's flush timeout for this scenario. */
  readonly timeoutMs?: number
  /** Toxics added before the flush starts. */
  readonly before?: (db: TestDatabase) => Promise<void>
  /** Toxics added while the flush runs (after the server started sleeping). */
  readonly during?: (db: TestDatabase) => Promise<void>
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
const cold = (v: Variant) => !v.warm

/**
 * Bytes of the simple-protocol Query that opens a transaction in `off` and `waves` (BEGIN and the flush
 * log insert). A `burst` starts with the whole flush: a cut this far in falls inside it.
 */
const BEGIN_BYTES =
  1 + 4 + Buffer.byteLength(['begin', ...flushLogInsert(`"${FLUSH_LOG}"`, randomUUID())].join(SEPARATOR)) + 1

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
    // A connection opened by the flush is reset on its startup message: no connection can be had.
    expect: (v) =>
      burst(v) && !cold(v)
        ? { code: 'COMMIT_OUTCOME_UNKNOWN', committed: false }
        : { code: 'CONNECTION_LOST', committed: false },
  },
  {
    name: 'reset_peer during the id fetch, before the transaction',
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
    // A connection opened by the flush never finishes its startup: the flush times out waiting for it.
    expect: (v) =>
      burst(v) && !cold(v)
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
      // Its own name: re-adding `latency_downstream` right after the previous scenario removed it left
      // toxiproxy 2.12 holding the terminated pg connection, and removing the toxic then took 20 s.
      await db.proxy.setLatency(900, { name: 'latency_spike' })
    },
    // burst: everything reached the server at once; only the answers are late.
    expect: (v) =>
      burst(v) && !cold(v)
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
      burst(v) && !cold(v)
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
      burst(v) && !cold(v)
        ? { code: 'COMMIT_OUTCOME_UNKNOWN', committed: true }
        : { code: 'FLUSH_TIMEOUT', committed: false },
  },
  {
    name: 'a flush blocked on a row lock outlives flushTimeoutMs; its backend is cancelled, nothing runs once the lock is free (the flush log check waits for it)',
    timeoutMs: 400,
    rowLock: true,
    // burst: the COMMIT is already in the server's input, behind the blocked statement, so the flush
    // cannot say; the cancel sent at the deadline ends the blocked statement, and the message with it.
    // (Before the cancel, the server ran the rest once the lock was free: committed late.)
    expect: (v) =>
      burst(v)
        ? { code: 'COMMIT_OUTCOME_UNKNOWN', committed: false }
        : { code: 'FLUSH_TIMEOUT', committed: false },
  },
]
