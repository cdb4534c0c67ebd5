import type { UnitConnections } from '../connection/unit-connections.ts'
import type { Row } from '../drivers/driver.ts'
import type { PipeflushError } from '../errors.ts'
import type { Attributes } from '../observe/tracing.ts'
import type { Settings } from '../settings.ts'
import type { ReadStatement } from './read-statement.ts'
import {
  identityOf,
  LAG_STATEMENT,
  pinnedToPrimary,
  REPLICA_REFUSALS,
  type ReplicaSet,
  replicaSafe,
} from './replicas.ts'
import { type ReadTarget, sendReads } from './send-reads.ts'

/** What routing a unit of work's reads needs: its settings and its connections. */
export type ReadContext = Pick<Settings, 'timeoutMs' | 'named' | 'observe' | 'replicas' | 'localSettings'> & {
  readonly connections: UnitConnections
  /** The batch's reads were started before the application ended the client (see `Driver.admit`). */
  readonly admitted?: boolean | undefined
  /**
   * Outside the locking transaction, whatever the statements: a read of a batch whose failure ended
   * that transaction, sent again on its own to tell which one failed (see `ReadBatch`).
   */
  readonly unheld?: boolean | undefined
}

/**
 * Where a batch of a unit of work's reads goes, and goes again when a replica cannot answer: each
 * one's rows.
 * - into the unit of work's locking transaction, when one is open or a statement locks (it begins it);
 * - to the primary when the unit of work has written (it reads its own writes, past a middleware that
 *   balances reads over standbys: see `pinnedToPrimary`), or when a statement locks or writes;
 * - else to a replica, in turn, its replay lag measured in the same message: beyond `maxReplicaLagMs`,
 *   or when the replica fails or refuses, the batch goes to the primary (the replica is left out for a
 *   while when it failed or lagged);
 * - without replicas, to the primary.
 * The span of each batch says which server answered and why. Not itself async: a batch that goes to
 * the primary is the send's own promise, without one around it.
 *
 * @example
 * const rowSets = await routeReads(context, [{ text: 'select 1', params: [] }], 'Reading')
 */
export function routeReads(
  context: ReadContext,
  statements: readonly ReadStatement[],
  what: string,
): Promise<(readonly Row[])[]> {
  const { connections, replicas } = context
  const primary = connections.driver
  const send = (target: ReadTarget, sent: readonly ReadStatement[], extra: Attributes) =>
    sendReads(context, target, sent, what, extra)
  const pool = { source: connections.pool, driver: primary }
  const held =
    context.unheld === true ? undefined : connections.forRead(statements.some((s) => s.locking === true))
  if (held !== undefined) {
    return send({ source: held, driver: primary }, statements, {
      'pipeflush.server': 'primary (locking transaction)',
    })
  }
  if (connections.wrote) {
    // Its own writes: on the primary, and past a middleware that balances reads over standbys.
    const extra = replicas === undefined ? {} : { 'pipeflush.server': 'primary (read your writes)' }
    return send(pool, statements.map(pinnedToPrimary), extra)
  }
  if (replicas === undefined) return send(pool, statements, {})
  if (!statements.every((s) => replicaSafe(s.text)))
    return send(pool, statements, { 'pipeflush.server': 'primary (a statement that locks or writes)' })
  const picked = replicas.pick()
  if ('skipped' in picked) {
    const skipped = picked.skipped.join('; ')
    return send(pool, statements, { 'pipeflush.server': 'primary', 'pipeflush.replicas_skipped': skipped })
  }
  return viaReplica(context, statements, what, picked)
}

/** The replica a batch goes to (see `ReplicaSet.pick`). */
type Picked = Exclude<ReturnType<ReplicaSet['pick']>, { readonly skipped: readonly string[] }>

/** `statements` on the replica `picked`, its lag measured with them; on the primary when it cannot answer (see {@link routeReads}). */
async function viaReplica(
  context: ReadContext,
  statements: readonly ReadStatement[],
  what: string,
  picked: Picked,
): Promise<(readonly Row[])[]> {
  const replicas = context.replicas!
  const send = (target: ReadTarget, sent: readonly ReadStatement[], extra: Attributes) =>
    sendReads(context, target, sent, what, extra)
  const pool = { source: context.connections.pool, driver: context.connections.driver }
  const replica = { source: picked.source, driver: picked.driver }
  let rowSets: (readonly Row[])[]
  try {
    // The lag first: what the statements after it read is at least as recent as what it measured.
    rowSets = await send(replica, [LAG_STATEMENT, ...statements], {
      'pipeflush.server': `replica ${picked.driver.address}`,
    })
  } catch (e) {
    const error = e as PipeflushError
    const refused =
      (error.code === 'STATEMENT_FAILED' || error.code === 'READ_ONLY_SERVER') &&
      REPLICA_REFUSALS.has(error.sqlState ?? '')
    // A select of the application's that fails fails on the primary too (once the replica is known
    // to serve the primary's database: before, it may lack the table); and a read that timed out
    // took its time already (reads settle within flushTimeoutMs): both fail as they are.
    const confirmed = replicas.confirmed(picked.index)
    if ((error.code === 'STATEMENT_FAILED' && !refused && confirmed) || error.code === 'QUERY_TIMEOUT') {
      if (error.code === 'QUERY_TIMEOUT') replicas.failed(picked.index, error.code)
      throw error
    }
    const onPrimary = () =>
      send(pool, statements, {
        'pipeflush.server': 'primary',
        'pipeflush.replicas_skipped': `${picked.driver.address}: ${error.message}`,
      })
    if (refused) return onPrimary()
    if (error.code !== 'STATEMENT_FAILED') {
      replicas.failed(picked.index, error.code) // down: left out for a while
      return onPrimary()
    }
    // Not known to serve the primary's database: left out for a while if the primary answers the
    // select it refused (it may lack the table), not if the select fails there too.
    const rows = await onPrimary()
    replicas.failed(picked.index, 'it refused a select the primary answered')
    return rows
  }
  const measured = rowSets[0]?.[0] as Readonly<Record<string, unknown>> | undefined
  const lag = Number(measured?.['lag'])
  const skipped = replicas.answered(
    picked.index,
    Number.isFinite(lag) ? lag : undefined,
    identityOf(measured),
  )
  if (skipped === undefined) return rowSets.slice(1)
  // Lagging beyond the bound, or another database: what it read is not what the application asked.
  return send(pool, statements, {
    'pipeflush.server': 'primary',
    'pipeflush.replicas_skipped': `${picked.driver.address}: ${skipped}`,
  })
}
