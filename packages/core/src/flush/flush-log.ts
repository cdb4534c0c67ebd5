import type { Driver } from '../drivers/driver.ts'
import { errors } from '../errors.ts'
import { quoteIdentifier, quoteStringLiteral } from '../values/index.ts'
import { describeValue } from '../values/location.ts'

/**
 * The flush log: an opt-in table where every flush inserts its id inside its own transaction, so that
 * after `COMMIT_OUTCOME_UNKNOWN` the caller can ask the database whether that flush committed. The
 * insert travels in the same simple-protocol query as BEGIN: it costs no round trip.
 *
 * ```sql
 * create table pipeflush_flush_log (
 *   flush_id uuid primary key,
 *   committed boolean not null,
 *   at timestamptz not null default now()
 * );
 * ```
 * Rows are never deleted by pipeflush: prune old ones as you see fit
 * (`delete from pipeflush_flush_log where at < now() - interval '30 days'`).
 */
export function flushLogDdl(name: string): string {
  return `create table ${flushLogSqlName(name)} (flush_id uuid primary key, committed boolean not null, at timestamptz not null default now())`
}

/**
 * The quoted SQL name of a flush log table given as `table` or `schema.table` (split at the first dot).
 *
 * The option and `flushLogDdl` take the name as written; every statement needs it quoted.
 */
export function flushLogSqlName(name: string): string {
  if (typeof name !== 'string' || name === '') {
    throw errors.flushLogName(describeValue(name))
  }
  const dot = name.indexOf('.')
  return dot < 0
    ? quoteIdentifier(name)
    : `${quoteIdentifier(name.slice(0, dot))}.${quoteIdentifier(name.slice(dot + 1))}`
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function checkFlushId(flushId: string): void {
  if (typeof flushId !== 'string' || !UUID.test(flushId)) {
    throw errors.flushIdNotUuid(describeValue(flushId))
  }
}

/**
 * The statements that open a flush inside its transaction: none, or with a flush log the insert of the
 * flush's id (sent with the first statements: it costs no round trip).
 *
 * The id committed with the flush lets the caller ask, after `COMMIT_OUTCOME_UNKNOWN`, whether it committed.
 */
export function flushLogInsert(flushLogName: string | undefined, flushId: string): string[] {
  if (flushLogName === undefined) return []
  checkFlushId(flushId)
  return [
    `insert into ${flushLogName} (flush_id, committed) values (${quoteStringLiteral(flushId)}::uuid, true)`,
  ]
}

/**
 * Checks that the flush log table exists with a unique uuid `flush_id` and a boolean `committed`
 * column; throws `INVALID_CONFIG` with the DDL otherwise. One query.
 */
export async function checkFlushLog(driver: Pick<Driver, 'query'>, name: string): Promise<void> {
  const sqlName = flushLogSqlName(name)
  const rel = `to_regclass(${quoteStringLiteral(sqlName)})`
  const [row] = (await driver.query(
    `select (${rel} is not null)::text as found,
      (select format_type(a.atttypid, a.atttypmod) from pg_attribute a where a.attrelid = ${rel} and a.attname = 'flush_id' and not a.attisdropped) as idtype,
      (select format_type(a.atttypid, a.atttypmod) from pg_attribute a where a.attrelid = ${rel} and a.attname = 'committed' and not a.attisdropped) as committedtype,
      exists (select 1 from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
        where i.indrelid = ${rel} and i.indisunique and i.indnkeyatts = 1 and a.attname = 'flush_id')::text as unique`,
  )) as { found: string; idtype: string | null; committedtype: string | null; unique: string }[]
  const problem =
    row?.found !== 'true'
      ? 'does not exist'
      : row.idtype !== 'uuid'
        ? 'has no uuid column "flush_id"'
        : row.committedtype !== 'boolean'
          ? 'has no boolean column "committed"'
          : row.unique !== 'true'
            ? 'has no primary key or unique index on "flush_id" alone'
            : undefined
  if (problem !== undefined) {
    throw errors.flushLogTable(sqlName, problem, flushLogDdl(name))
  }
}

/**
 * The statement that tells whether flush `flushId` committed, answered definitively: it inserts the id
 * itself (`committed = false`) unless the flush's own row is there. It waits for a flush still in
 * progress (unique-index wait), and once it answers false the flush can never commit later: its own
 * insert of the id would then fail. One statement, autocommit, on the primary; read its answer with
 * {@link committedIn}.
 *
 * @example
 * committedIn(await onPrimary(wasCommittedStatement(flushLog, id))) // true or false
 */
export function wasCommittedStatement(flushLogName: string, flushId: string): { text: string; params: [] } {
  checkFlushId(flushId)
  return {
    text:
      `insert into ${flushLogName} as l (flush_id, committed) values (${quoteStringLiteral(flushId)}::uuid, false) ` +
      'on conflict (flush_id) do update set committed = l.committed returning l.committed::text as committed',
    params: [],
  }
}

/** What {@link wasCommittedStatement} answered: whether the flush committed. */
export function committedIn(rows: readonly Readonly<Record<string, unknown>>[]): boolean {
  return rows[0]?.['committed'] === 'true'
}
