import type postgres from 'postgres'
import type { FlushPlan } from '../plan/types.ts'

/** How a flush is sent. */
export type PipelineMode = 'off' | 'waves' | 'burst'

/** What an executor needs besides the plan. */
export interface ExecuteContext {
  readonly sql: postgres.Sql
  readonly flushId: string
  /** Runs before the transaction on the same connection (id fetch); returns round trips it cost. */
  readonly before?: ((runner: postgres.ReservedSql) => Promise<number>) | undefined
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
