import type { EntityState } from '../track/entity-state.ts'
import type { UpsertSpec } from '../track/upsert-spec.ts'

export type { UpsertSpec }

/**
 * The plan: what a flush will send, as plain data. Built from a {@link ChangeSet} by `planFlush`,
 * with no I/O, so it can be printed, asserted in tests and executed by any executor.
 */

/** A row's values by column name, already validated and normalized (see `values/`). FK values are concrete keys. */
export type RowValues = Readonly<Record<string, unknown>>

/** What a flush sent for each entity it inserted or updated: their snapshots once it committed. */
export type SentValues = ReadonlyMap<EntityState, Record<string, unknown>>

/** A new row to insert. `values` holds every column the row supplies, its primary key included. */
export interface InsertChange {
  readonly table: string
  readonly values: RowValues
  /** Insert-or-update on a conflict of these columns. */
  readonly upsert?: UpsertSpec | undefined
}

/** Changed columns of a managed row. */
export interface UpdateChange {
  readonly table: string
  /** Primary key values by column. */
  readonly key: RowValues
  /** New values of the changed columns only (never the version column: the planner increments it). */
  readonly set: RowValues
  /** The version the row had when loaded, when the table has a version column. */
  readonly expectedVersion?: number | undefined
}

export interface DeleteChange {
  readonly table: string
  readonly key: RowValues
  readonly expectedVersion?: number | undefined
}

/** Everything one flush must write. Order inside each list does not matter: the planner sorts. */
export interface ChangeSet {
  readonly inserts: readonly InsertChange[]
  readonly updates: readonly UpdateChange[]
  readonly deletes: readonly DeleteChange[]
}

export type StatementKind = 'insert' | 'update' | 'delete'

/**
 * One SQL statement of a plan. `sql` is constant for a given (table, kind, column set) and form, so it
 * stays prepared on the connection: a statement of several rows takes each parameter column as one
 * `text[]` array (one element per row, `null` for SQL NULL), whatever the number of rows; a statement
 * of exactly one row takes that row's texts as `text` parameters (a shorter text the server plans in
 * about half the time). Either way there are never more parameters than columns.
 */
export interface PlannedStatement {
  readonly kind: StatementKind
  readonly table: string
  /** Columns written (insert), set (update) or matched (delete), in SQL order. */
  readonly columns: readonly string[]
  readonly sql: string
  /**
   * Per parameter column, the rows' texts (the value's text form, or null): sent as one `text[]`, or
   * when `rowCount` is 1 as the one text itself.
   */
  readonly params: readonly (readonly (string | null)[])[]
  /** Number of rows the statement must affect; fewer fails the statement on the server. */
  readonly rowCount: number
  /**
   * Primary keys of the rows, in statement order (for error messages): null for a key, or a part of
   * one, the server fills or finds (a reference to an upserted row, looked up by its conflict values).
   */
  readonly keys: readonly unknown[]
  /**
   * True for the follow-up UPDATE that sets a nullable foreign key which was inserted as NULL to break
   * a cycle.
   */
  readonly fixup: boolean
  /** For inserts that are upserts. */
  readonly upsert?: UpsertSpec | undefined
  /**
   * A plain insert of rows whose key the server fills (their key columns left to the DEFAULT): each
   * row's index among the change set's inserts, in statement order. The statement returns the keys
   * (see `returning`) in that order, which is how the flush gives each entity its key. Absent for
   * every other statement.
   */
  readonly sources?: readonly number[] | undefined
  /**
   * An insert sent as `COPY ... FROM STDIN` (its `sql`): the rows' texts go as COPY data right behind
   * the statement, not as parameters. Only large inserts, where the driver can (see `copyRows`).
   */
  readonly copy?: true | undefined
  /**
   * Columns the statement returns as text, aliased `r0, r1...`: the primary key, then the values the
   * server filled (an insert's columns the rows do not supply, an update's generated columns), which
   * the flush reads back into the entities. Absent when it returns none.
   */
  readonly returning?: readonly string[] | undefined
  /**
   * Columns a row takes by a lookup on an upserted row's conflict columns, when it references a row
   * upserted by the same flush (whose key may be an existing row's): each lookup's conflict values are
   * parameters after the statement's own (`params`), in this order; NULL for rows that do not.
   */
  readonly lookups?:
    | readonly { readonly column: string; readonly table: string; readonly conflict: readonly string[] }[]
    | undefined
}

/**
 * Statements in waves: every statement of wave n may depend on statements of waves < n, never on one
 * of its own wave. The server runs statements in the order given, so `statements()` (all waves, in
 * order) is also a valid sequential order.
 */
export interface FlushPlan {
  readonly waves: readonly (readonly PlannedStatement[])[]
}
