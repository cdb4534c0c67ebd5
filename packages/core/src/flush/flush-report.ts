import type { PipeflushError } from '../errors.ts'
import type { PipelineMode } from './pipeline-mode.ts'

/** What a flush did. */
export interface FlushReport {
  /** A unique id of this flush, carried by its errors. */
  readonly flushId: string
  readonly mode: PipelineMode
  /** The client's driver: `postgres.js` or `pg`. */
  readonly driver: 'postgres.js' | 'pg'
  /**
   * Network round trips the flush waited for, measured on its connection's socket: a client write
   * after data came back counts one (the rule of the test kit's counter). Opening a connection for the
   * flush and fetching ids are included; 0 when there was nothing to write. The TCP handshake is not a
   * write and is not counted (add one per `connected`). Over TLS the handshake's round trips are
   * counted too (from what the TLS socket reports once it is over). On postgres.js, an opening cut
   * before it was ready, which the pool replaced by another, is not counted.
   */
  readonly roundTrips: number
  /**
   * Of `roundTrips`, those of opening connections for the flush (startup, authentication, the
   * driver's first queries). On postgres.js also a connection its pool began to open while this flush
   * waited that served another flush first or none (the pool hands a waiting flush whichever
   * connection is free first): the flush waits until that opening is over, so that every opening is
   * in some flush's report.
   */
  readonly connectRoundTrips: number
  /**
   * Whether a connection was opened for this flush. A connection opened while several flushes waited
   * for one is counted by the first flush it serves; a later one counts from when it got it.
   */
  readonly connected: boolean
  /** Whether ids had to be fetched (one round trip) before the transaction. */
  readonly idFetch: boolean
  /** Statements sent (BEGIN and COMMIT not counted). */
  readonly statements: number
  readonly waves: number
  /**
   * Entities the flush wrote, by what the application asked (created, changed, removed): entities,
   * not statements. The updates a flush adds on its own (closing a cycle of new rows, clearing a
   * reference before a delete) are counted in `statements`, not in `updated`.
   */
  readonly inserted: number
  readonly updated: number
  readonly deleted: number
  /** Rows inserted or updated by upserts. */
  readonly upserted: number
  readonly durationMs: number
  /**
   * Bytes the flush wrote and received on its connection (opening it included when opened for the
   * flush; undefined where the socket cannot be observed).
   */
  readonly bytesSent?: number | undefined
  readonly bytesReceived?: number | undefined
  /** What it wrote, in a few words: `INSERT author book; UPDATE book` (empty when nothing). */
  readonly summary?: string | undefined
  /**
   * When an `afterCommit` hook is configured: what it threw (`HOOK_FAILED`, the hook's error as
   * `cause`), reported apart because the flush committed all the same. Empty when it ran cleanly.
   */
  readonly afterCommitErrors?: readonly PipeflushError[] | undefined
}
