import { type ConnectionSource, poolSource } from '../connection/provide-connection.ts'
import type { Driver, Param } from '../drivers/driver.ts'

/** How long a replica that failed is left out before it is tried again. */
const DOWN_FOR_MS = 5_000

/** What is known of one replica. */
export interface ReplicaStatus {
  readonly address: string
  /** Whether reads go to it now. */
  readonly usable: boolean
  /** Its replay lag as last measured (ms; 0 when it had replayed all it received), if measured. */
  readonly lagMs: number | undefined
  /** Why it is left out, when it is: down since a failure, or lagging beyond `maxReplicaLagMs`. */
  readonly reason: string | undefined
}

/**
 * A select sent first in every batch a replica answers, in the same message: its identity (see
 * `identityColumns`), and its replay lag (ms).
 * 0 when it has replayed all it received from a primary it streams from (an idle primary writes
 * nothing, so the time since the last replayed transaction grows without any lag) or when it is not
 * a standby; else, or when it streams from no primary (it cannot know what it misses), the time since
 * the last transaction it replayed.
 */
export const LAG_STATEMENT: { readonly text: string; readonly params: readonly Param[] } = {
  text:
    'select (case when not pg_is_in_recovery() then 0' +
    ' when not exists (select from pg_stat_wal_receiver)' +
    ' or pg_last_wal_receive_lsn() is distinct from pg_last_wal_replay_lsn()' +
    ' then coalesce(extract(epoch from now() - pg_last_xact_replay_timestamp()) * 1000, 0)' +
    ' else 0 end)::float8::text as lag, ' +
    identityColumns(),
  params: [],
}

/**
 * The columns of a server's identity (see {@link ServerIdentity}): its database, and its cluster's
 * system identifier, which a streaming standby shares with its primary (null where the role may not
 * read it: the check is then of the database's name alone).
 */
function identityColumns(): string {
  return (
    'current_database()::text as db, ' +
    "(case when has_function_privilege('pg_catalog.pg_control_system()', 'execute')" +
    ' then (select system_identifier::text from pg_catalog.pg_control_system()) end) as system'
  )
}

/** The select of a server's identity, asked of the primary at connect when there are replicas. */
export const IDENTITY_SQL = `select ${identityColumns()}`

/** Which database of which cluster a server serves: a replica must serve the primary's. */
export interface ServerIdentity {
  readonly db: string
  readonly system: string | null
}

/** The identity in a row of {@link IDENTITY_SQL} or {@link LAG_STATEMENT}, if it holds one. */
export function identityOf(row: Readonly<Record<string, unknown>> | undefined): ServerIdentity | undefined {
  const db = row?.['db']
  if (typeof db !== 'string') return undefined
  const system = row?.['system']
  return { db, system: typeof system === 'string' ? system : null }
}

/**
 * What a standby answers a statement it will not run where the primary would: a write or a lock
 * (25006, read-only transaction) or a query cancelled for a conflict with recovery (40001). The
 * statements are then sent to the primary; the replica is not left out for it.
 */
export const REPLICA_REFUSALS: ReadonlySet<string> = new Set(['25006', '40001'])

/**
 * Whether a statement may run on a replica: a select (or `with`, `values`, `table`) that neither
 * locks rows (`for update`, `for share`...) nor, in a `with`, writes. Read on the text, conservatively:
 * a word such as `update` anywhere in a `with` keeps it on the primary.
 *
 * A statement that locks or writes must go to the primary, and its text is all there is to tell.
 */
export function replicaSafe(text: string): boolean {
  if (!/^\s*(?:select|with|values|table)\b/i.test(text)) return false
  if (/\bfor\s+(?:update|no\s+key\s+update|share|key\s+share)\b/i.test(text)) return false
  return !/^\s*with\b/i.test(text) || !/\b(?:insert|update|delete|merge)\b/i.test(text)
}

/**
 * The replicas reads may go to (the `replicas` option of `connect`), in turn. A replica is left out
 * for a while after a read on it failed (its connection, or the server refusing: a standby may
 * cancel a query that conflicts with recovery), and while its lag, measured first in every batch it
 * answers, is beyond `maxLagMs` (what that batch read is then read again on the primary; the replica
 * is tried again after a while, to measure anew); the reason is kept (`status()`, and the read's span).
 */
export class ReplicaSet {
  readonly drivers: readonly Driver[]
  readonly maxLagMs: number
  /** Each replica's pool, as a connection source. */
  readonly #sources: readonly ConnectionSource[]
  readonly #downUntil: number[]
  readonly #downReason: (string | undefined)[]
  readonly #lag: (number | undefined)[]
  /** When each lag was measured: a replica left out for lag is tried again after a while. */
  readonly #lagAt: number[]
  /** Why a replica serves no reads at all (another database than the primary's), if it does not. */
  readonly #wrong: (string | undefined)[]
  /** Whether each replica answered with the primary's identity (or no identity is checked). */
  readonly #confirmed: boolean[]
  /** The primary's identity, once known: each replica's is compared with it as it answers. */
  #primary: ServerIdentity | undefined
  #next = 0

  constructor(drivers: readonly Driver[], maxLagMs: number) {
    this.drivers = drivers
    this.maxLagMs = maxLagMs
    this.#sources = drivers.map(poolSource)
    this.#downUntil = drivers.map(() => 0)
    this.#downReason = drivers.map(() => undefined)
    this.#lag = drivers.map(() => undefined)
    this.#lagAt = drivers.map(() => 0)
    this.#wrong = drivers.map(() => undefined)
    this.#confirmed = drivers.map(() => false)
  }

  /**
   * Whether replica `index` is known to serve the primary's database: until it answered once, a
   * select it refuses (a table its database lacks) is read again on the primary.
   */
  confirmed(index: number): boolean {
    return this.#primary === undefined || this.#confirmed[index]!
  }

  /** The primary's identity (asked at connect): a replica serving another database is left out. */
  expectPrimary(identity: ServerIdentity): void {
    this.#primary = identity
  }

  /** The next usable replica, or the reasons every one is left out. */
  pick():
    | { readonly index: number; readonly driver: Driver; readonly source: ConnectionSource }
    | { readonly skipped: readonly string[] } {
    const skipped: string[] = []
    for (let k = 0; k < this.drivers.length; k++) {
      const i = (this.#next + k) % this.drivers.length
      const reason = this.#reason(i)
      if (reason === undefined) {
        this.#next = (i + 1) % this.drivers.length
        return { index: i, driver: this.drivers[i]!, source: this.#sources[i]! }
      }
      skipped.push(`${this.drivers[i]!.address}: ${reason}`)
    }
    return { skipped }
  }

  /** Replica `index` failed a read: left out for a while. */
  failed(index: number, reason: string): void {
    this.#downUntil[index] = performance.now() + DOWN_FOR_MS
    this.#downReason[index] = reason
  }

  /**
   * Replica `index` answered, with this replay lag (ms) and its identity: why what it read must not be
   * used (it lags beyond `maxLagMs`: it is then left out for a while; it serves another database than
   * the primary's, a mistaken URL: it is left out for good), or undefined.
   */
  answered(index: number, lagMs: number | undefined, identity?: ServerIdentity): string | undefined {
    this.#downUntil[index] = 0
    this.#downReason[index] = undefined
    const primary = this.#primary
    if (primary !== undefined && identity !== undefined) {
      const other =
        identity.db !== primary.db ||
        (identity.system !== null && primary.system !== null && identity.system !== primary.system)
      if (other) {
        this.#wrong[index] =
          identity.db !== primary.db
            ? `serves database "${identity.db}", not the primary's "${primary.db}" (check the replica's URL)`
            : `is no replica of the primary: its cluster's system identifier is ${identity.system}, the primary's ${primary.system} (check the replica's URL)`
        return this.#wrong[index]
      }
    }
    if (identity !== undefined) this.#confirmed[index] = true
    if (lagMs === undefined) return undefined
    this.#lag[index] = lagMs
    this.#lagAt[index] = performance.now()
    return this.#reason(index)
  }

  /** What is known of each replica. */
  status(): ReplicaStatus[] {
    return this.drivers.map((d, i) => {
      const reason = this.#reason(i)
      return { address: d.address, usable: reason === undefined, lagMs: this.#lag[i], reason }
    })
  }

  #reason(i: number): string | undefined {
    if (this.#wrong[i] !== undefined) return this.#wrong[i]
    if (performance.now() < this.#downUntil[i]!) return `down (${this.#downReason[i]})`
    const lag = this.#lag[i]
    // Measured only when it answers: after a while, one read goes to it again to measure anew.
    if (lag !== undefined && lag > this.maxLagMs && performance.now() - this.#lagAt[i]! < DOWN_FOR_MS)
      return `lagging ${Math.round(lag)} ms, more than maxReplicaLagMs (${this.maxLagMs})`
    return undefined
  }
}

/**
 * The comment with which a statement asks Pgpool-II not to balance it over the standbys (it then goes
 * to the primary); PostgreSQL and other middleware read a comment.
 */
const NO_LOAD_BALANCE = '/*NO LOAD BALANCE*/ '

/**
 * `statement`, sent to the primary by a middleware that balances reads (Pgpool-II), as a unit of work
 * that wrote needs for reading its own writes.
 */
export function pinnedToPrimary<S extends { readonly text: string }>(statement: S): S {
  return statement.text.startsWith(NO_LOAD_BALANCE)
    ? statement
    : { ...statement, text: NO_LOAD_BALANCE + statement.text }
}
