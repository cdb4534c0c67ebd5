import type { MeteredFlush } from '@pipeflush/example-support'
import type { Repositories } from './types.ts'

/** What a request's work told about its database use, for the round-trip table. */
export interface RequestObserver {
  /** The request's unit of work flushed (pipeflush only): its report, and the socket's count of it. */
  flushed(flush: MeteredFlush): void
}

/**
 * The database behind the handlers: a new unit of work per request. `pipeflushStore` (reads batched
 * per tick, one flush at the end) or `kyselyStore` (each query awaited, writes in Kysely
 * transactions), swappable: the handlers only see {@link Repositories}.
 */
export interface Store {
  /** What it is, for output: `pipeflush (burst)`, `plain Kysely`. */
  readonly name: string
  /**
   * Runs one request's work on the repositories of a new unit of work and commits what it wrote when
   * the work returns (nothing when it throws). A write refused by a unique constraint rejects with
   * `UniqueViolation`.
   */
  run<T>(work: (repositories: Repositories) => Promise<T>, observer?: RequestObserver): Promise<T>
}
