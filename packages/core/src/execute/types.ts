import type postgres from 'postgres'
import type { FlushPlan } from '../plan/types.ts'

/** How a flush is sent. */
export type PipelineMode = 'off' | 'waves' | 'burst'

/** A query runner: what the id fetch needs of a connection. */
export type Runner = Pick<postgres.Sql, 'unsafe'>

/** What an executor needs besides the plan. */
export interface ExecuteContext {
  readonly sql: postgres.Sql
  readonly flushId: string
  /**
   * Named prepared statements (extended protocol) when true; when false every statement travels as a
   * simple-protocol query with literal values (what works behind transaction-mode poolers).
   */
  readonly prepare: boolean
  /** The flush settles within this many milliseconds (Infinity: no limit). */
  readonly timeoutMs: number
  /**
   * The SQL that opens the transaction: `begin`, or `begin; insert into <flush log> ...` when a flush
   * log is configured (one simple-protocol query: the log costs no round trip).
   */
  readonly beginSql: string
  /** Runs before the transaction on the same connection (id fetch); returns round trips it cost. */
  readonly before?: ((runner: Runner) => Promise<number>) | undefined
  /** The plan to send, built after `before` (ids assigned). */
  readonly makePlan: () => FlushPlan
}

/** What an executor reports. */
export interface ExecuteResult {
  /** Round trips the flush took on its connection, by the executor's own accounting. */
  readonly roundTrips: number
  /** True when statements were not yet prepared on the connection and the cold path was taken. */
  readonly cold: boolean
  /** The plan that was sent. */
  readonly plan: FlushPlan
}
