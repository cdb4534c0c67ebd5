import type { ConnectionSource } from '../connection/provide-connection.ts'
import { provideConnection } from '../connection/provide-connection.ts'
import { FlushSession } from './flush-session.ts'
import { interruptionError } from './outcome.ts'

/** What a flush did on its connection, beside what it made there. */
export interface ConnectionUse<T> {
  /** What the flush's work on the connection returned. */
  readonly value: T
  /**
   * Round trips measured on the flush's connection, opening it included when it was opened for the
   * flush, and the openings the pool began for it on other connections (`FlushSession.openings`).
   */
  readonly roundTrips: number
  /** Whether a connection was opened for this flush. */
  readonly opened: boolean
  /** Of `roundTrips`, those of opening connections: its own, and openings the pool began for it. */
  readonly connectRoundTrips: number
  /** Bytes written and received on the flush's connection (undefined: not observed). */
  readonly bytes: { readonly sent: number; readonly received: number } | undefined
}

/**
 * Runs `work` on one connection of `source` (the pool, or the unit of work's locking transaction)
 * for the flush `flushId`, within `timeoutMs` (which `work` shares), through `provideConnection`:
 * one deadline, one error mapping (a failure's code follows the outcome rules of `outcome.ts`), the
 * connection given back unless it ended or its server refused the write as read-only. Measures what
 * the flush cost on it.
 *
 * Every mode runs on it, so a connection is reserved, timed out and given back by the same rules.
 */
export async function withFlushConnection<T>(
  source: ConnectionSource,
  timeoutMs: number,
  flushId: string,
  work: (fs: FlushSession) => Promise<T>,
): Promise<ConnectionUse<T>> {
  const used = await provideConnection(
    source,
    {
      what: 'The flush',
      timeoutMs,
      flushId,
      session: (session, deadline, continued) => new FlushSession(session, deadline, continued),
      failure: (e, fs) => interruptionError(e, fs, flushId, timeoutMs),
    },
    (fs) =>
      work(fs).then((value) => {
        const costs = fs.costs()
        return {
          value,
          roundTrips: costs.roundTrips,
          opened: !fs.continued && fs.session.opened,
          connectRoundTrips: costs.connectRoundTrips,
          bytes: costs.bytes,
          // Claimed before the connection goes back, counted once they are over.
          openings: fs.openings(),
        }
      }),
  )
  const { openings } = used
  const more = typeof openings === 'number' ? openings : await openings
  // Written out, not a rest spread of `used`: once per flush.
  return {
    value: used.value,
    roundTrips: used.roundTrips + more,
    opened: used.opened,
    connectRoundTrips: used.connectRoundTrips + more,
    bytes: used.bytes,
  }
}
