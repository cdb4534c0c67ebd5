import { selectError } from '../connection/connection-errors.ts'
import { type ConnectionSource, provideConnection } from '../connection/provide-connection.ts'
import { sendSelects } from '../connection/send-selects.ts'
import type { Row } from '../drivers/driver.ts'
import { GuardedSession } from '../drivers/guarded-session.ts'
import { observeRead, type ReadSubject } from '../observe/observe-read.ts'
import type { Attributes, TraceSpan } from '../observe/tracing.ts'
import type { Settings } from '../settings.ts'
import type { ReadStatement } from './read-statement.ts'

/** Where a read batch is sent: a connection source, and the server's driver its span names. */
export interface ReadTarget {
  readonly source: ConnectionSource
  readonly driver: ReadSubject
}

/**
 * `statements` on a connection of `target`, in one round trip (see `sendSelects` for how), observed
 * as one read batch (its span carries `extra`: which server, and why): each one's rows. Settles
 * within `timeoutMs`; fails with a coded error (`QUERY_TIMEOUT`, `CONNECTION_LOST`,
 * `STATEMENT_FAILED`, or why no connection could be had).
 *
 * @example
 * const [rows] = await sendReads(settings, { source: pool, driver }, [{ text: 'select 1', params: [] }], 'Reading', {})
 */
export function sendReads(
  settings: Pick<Settings, 'timeoutMs' | 'named' | 'observe' | 'localSettings'> & {
    readonly admitted?: boolean | undefined
  },
  target: ReadTarget,
  statements: readonly ReadStatement[],
  what: string,
  extra: Attributes,
): Promise<(readonly Row[])[]> {
  const { timeoutMs, named } = settings
  return observeRead(settings.observe, target.driver, statements, extra, (span) =>
    provideConnection(
      target.source,
      {
        what,
        timeoutMs,
        admitted: settings.admitted,
        session: (session, deadline, continued) => new GuardedSession(session, deadline, continued),
        failure: (e, session) => {
          if (span !== undefined) costs(span, session)
          return selectError(e, what, timeoutMs)
        },
      },
      (session, lease) =>
        sendSelects(session, statements, {
          named,
          begin: lease.begins,
          settings: settings.localSettings.texts,
        }).then((rowSets) => {
          if (span !== undefined) costs(span, session)
          return rowSets
        }),
    ),
  )
}

/** What the batch cost on its connection, on its span. */
function costs(span: TraceSpan, session: GuardedSession): void {
  const { bytes, roundTrips } = session.costs()
  span.setAttributes({
    'pipeflush.round_trips': roundTrips,
    'pipeflush.bytes_sent': bytes?.sent,
    'pipeflush.bytes_received': bytes?.received,
  })
}
