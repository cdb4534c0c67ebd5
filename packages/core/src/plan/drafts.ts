import type { TableModel } from '../schema/model.ts'
import type { RowValues, StatementKind, UpsertSpec } from './types.ts'

/** A row of a statement being planned, its values already encoded to text. */
export interface RowDraft {
  /** The primary key as the change set gave it: the value, or an array of values for a composite key. */
  readonly key: unknown
  /** The primary key values, in key order. */
  readonly keyValues: readonly unknown[]
  /** The primary key values' canonical forms (`normalizeKeyValue`), in key order: rows sort by them. */
  readonly keyIds: readonly string[]
  /** The primary key values' text forms, in key order. */
  readonly keyTexts: readonly string[]
  /** Insert: every supplied value. Update: the set values. Delete: empty. */
  readonly values: RowValues
  /**
   * Text form of the value of each of the statement's columns, in its column order; the planner nulls
   * foreign keys here to break cycles.
   */
  readonly texts: (string | null)[]
  /** Text form of the expected version, or null (no version check for this row). */
  readonly versionText: string | null
  /**
   * A new row whose key the server fills (`keyFillOf`): its index among the change set's inserts, by
   * which the flush finds its entity again when the key comes back. Absent for every other row.
   */
  readonly source?: number
}

/** A statement being planned: rows of one table sharing a kind and a column set. */
export interface StatementDraft {
  readonly kind: StatementKind
  readonly table: TableModel
  /** Insert: supplied columns. Update: set columns. Delete: empty. In table order. */
  readonly columns: readonly string[]
  readonly fixup: boolean
  readonly rows: RowDraft[]
  /** Inserts only: the upsert's conflict and update columns. */
  readonly upsert?: UpsertSpec | undefined
}

/**
 * Whether the rows of `draft` leave part of their key to the server: an insert that does not write
 * every key column (the rows holding a key column all write it). Their keys are unknown until the
 * statement answers: they are not sorted by key, not compared for duplicates, and no fix-up can update
 * them.
 *
 * @example
 * serverKeyed(insertOfCustomersWithoutIds) // true when the server fills customer_id
 */
export function serverKeyed(draft: Pick<StatementDraft, 'kind' | 'table' | 'columns'>): boolean {
  if (draft.kind !== 'insert') return false
  for (const name of draft.table.primaryKey) if (!draft.columns.includes(name)) return true
  return false
}

/**
 * Within a wave, updates go first. An insert's foreign-key check takes a KEY SHARE lock on the parent
 * row; updating that row later in the same transaction must upgrade the lock, and when a concurrent
 * transaction updated the row in between, PostgreSQL refuses ("new multixact has more than one
 * updating member", XX000) or deadlocks. Updated first, the row is already held by this transaction
 * when the insert checks it. Statements of one wave never depend on each other, so the order is free.
 */
const KIND_RANK: Readonly<Record<StatementKind, number>> = { update: 0, insert: 1, delete: 2 }

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** The deterministic statement order: kind (updates, inserts, deletes), table key, column set, fix-ups after plain updates. */
export function compareDrafts(a: StatementDraft, b: StatementDraft): number {
  const byKind = KIND_RANK[a.kind] - KIND_RANK[b.kind]
  if (byKind !== 0) return byKind
  const byTable = compareText(a.table.key, b.table.key)
  if (byTable !== 0) return byTable
  const length = Math.min(a.columns.length, b.columns.length)
  for (let i = 0; i < length; i++) {
    const byColumn = compareText(a.columns[i]!, b.columns[i]!)
    if (byColumn !== 0) return byColumn
  }
  if (a.columns.length !== b.columns.length) return a.columns.length - b.columns.length
  if (a.fixup !== b.fixup) return Number(a.fixup) - Number(b.fixup)
  return upsertId(a).localeCompare(upsertId(b))
}

/** A stable text for an upsert spec ('' for plain inserts). */
export function upsertId(draft: Pick<StatementDraft, 'upsert'>): string {
  return draft.upsert ? JSON.stringify([draft.upsert.conflict, draft.upsert.update]) : ''
}
