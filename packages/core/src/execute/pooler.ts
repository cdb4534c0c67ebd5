import type postgres from 'postgres'
import { PipeflushError } from '../errors.ts'

const detected = new WeakMap<postgres.Sql, Promise<boolean>>()

/**
 * Whether a connection pooler (PgBouncer, Supavisor, pgcat...) sits between the client and PostgreSQL.
 * A pooler hands its clients a cancel key of its own, so the process id of the BackendKeyData the
 * client got differs from the server's `pg_backend_pid()`; through a plain TCP proxy they are equal.
 * One simple-protocol query, once per client.
 */
export function detectPooler(sql: postgres.Sql): Promise<boolean> {
  let p = detected.get(sql)
  if (!p) {
    p = (async () => {
      const result = await sql.unsafe<{ pid: number }[]>('select pg_backend_pid() as pid')
      const keyPid = (result as unknown as { state?: { pid?: unknown } }).state?.pid
      return typeof keyPid === 'number' && Number(result[0]?.pid) !== keyPid
    })()
    detected.set(sql, p)
    p.catch(() => detected.delete(sql))
  }
  return p
}

/** The setting that works behind every pooler, for messages and docs. */
export const POOLER_ADVICE =
  'Create the postgres.js client with `prepare: false` (pipeflush then sends every flush as simple-protocol queries with literal values: no named prepared statements, still one round trip per burst flush), ' +
  'or pass `prepare: true` to EntityManager.connect if the pooler keeps named prepared statements per client (session pooling, or PgBouncer >= 1.21 with max_prepared_statements > 0).'

/**
 * Whether flushes use named prepared statements: `requested` when given (true is refused on a client
 * made with `prepare: false`), else false when the client does not prepare, else true unless a pooler
 * is detected, which is refused with `INVALID_CONFIG`: named prepared statements break behind a
 * transaction-mode pooler (PgBouncer before 1.21).
 */
export async function resolvePrepare(sql: postgres.Sql, requested: boolean | undefined): Promise<boolean> {
  const clientPrepares = (sql.options as { prepare?: unknown }).prepare !== false
  if (requested === false) return false
  if (requested === true) {
    if (!clientPrepares) {
      throw new PipeflushError(
        'INVALID_CONFIG',
        'prepare: true needs a postgres.js client that prepares statements; this one was created with `prepare: false`.',
      )
    }
    return true
  }
  if (requested !== undefined) {
    throw new PipeflushError(
      'INVALID_CONFIG',
      `prepare must be true, false or left out, not ${JSON.stringify(requested)}.`,
    )
  }
  if (!clientPrepares) return false
  if (await detectPooler(sql)) {
    throw new PipeflushError(
      'INVALID_CONFIG',
      `A connection pooler sits between this client and PostgreSQL (its cancel key is not the server's process id), and the client prepares named statements, which break behind a transaction-mode pooler. ${POOLER_ADVICE}`,
    )
  }
  return true
}
