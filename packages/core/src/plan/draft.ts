/**
 * What the first phase of planning makes of a flush (`draftFlush`), before any id is known: every value
 * validated and encoded, the rows grouped into statements and the statements ordered in waves. A key or
 * foreign-key cell whose value is a new row's id not assigned yet holds a {@link Slot} that points at
 * that row; the second phase (`completePlan`) fills the slots, orders the rows and builds the SQL.
 */
import { errors } from '../errors.ts'
import type { TableModel } from '../model/model.ts'
import type { EntityState } from '../track/entity-state.ts'
import type { LookupSql } from './sql/lookup-sql.ts'
import type { RowValues, StatementKind, UpsertSpec } from './types.ts'

/**
 * A cell standing for the id a sequence gives a new row: the value of `column` of `state`'s row once
 * the ids are assigned. `state` undefined: the row of the cell itself (its own key).
 *
 * The statements are drafted before a connection is reserved, when the new rows have no ids yet.
 */
export class Slot {
  readonly state: EntityState | undefined
  readonly column: string

  constructor(state: EntityState | undefined, column: string) {
    this.state = state
    this.column = column
  }
}

/** The slot of a row's own key column `column` (one shared object per column name). */
export function ownSlot(column: string): Slot {
  let slot = OWN.get(column)
  if (slot === undefined) {
    slot = new Slot(undefined, column)
    OWN.set(column, slot)
  }
  return slot
}

const OWN = new Map<string, Slot>()

/** A parameter cell of a draft: a value's text, SQL NULL, or a slot to fill. */
export type Cell = string | null | Slot

/** Gives the id that fills a slot: the value of `column` of `state`'s row, as the row holds it. */
export type IdSource = (state: EntityState, column: string) => unknown

/**
 * A new row to insert: an entity's state (a flush) or a change set's insert. A change set names its
 * table, checked where the row is planned (so that errors come in row order).
 */
export interface InsertInput {
  readonly table: TableModel | string
  /** The values by column name; an entity's references to entities are resolved while planning. */
  readonly row: RowValues
  readonly upsert?: UpsertSpec | undefined
  /** Set for an entity of a flush (an `EntityState` when `upsert` is undefined): see `cells.ts`. */
  readonly owner?: object | undefined
  /** An entity's status: a new entity leaves out the null key columns the server fills. */
  readonly status?: string
  /** The entity behind an upsert's row (a flush's), whose id a slot of the row's own key stands for. */
  readonly state?: EntityState | undefined
}

/** The entity whose id fills a slot of the row `row` (see {@link Slot}). */
export function slotEntity(slot: Slot, row: InsertInput | StoredInput): EntityState {
  return slot.state ?? row.state ?? (row as EntityState)
}

/** A stored row to update (`set` columns) or delete (`set` empty). */
export interface StoredInput {
  readonly table: TableModel | string
  /** The primary key as stored, by column. */
  readonly key: RowValues
  /** The columns set (an update), in any order; checked where the row is planned. */
  readonly set: readonly string[]
  /** Where the set columns' values are read (an entity's row, or a change set's `set`). */
  readonly row: RowValues
  readonly expectedVersion?: number | undefined
  /**
   * The entity (a flush): references resolved, its sent values taken (an update), the values it holds
   * as stored read from its snapshot (see `unique-handoffs.ts`).
   */
  readonly state?: EntityState | undefined
}

/** What a flush writes, as the planner takes it. */
export interface PlanInput {
  readonly inserts: readonly InsertInput[]
  readonly updates: readonly StoredInput[]
  readonly deletes: readonly StoredInput[]
}

/** A statement being planned: rows of one table sharing a kind and a column set, column by column. */
export interface StatementDraft {
  readonly kind: StatementKind
  readonly table: TableModel
  /** Insert: written columns. Update: set columns. Delete: none. In table order. */
  readonly columns: readonly string[]
  readonly fixup: boolean
  readonly upsert?: UpsertSpec | undefined
  /**
   * Each row's input, in the order met (a fix-up's: its insert's); the inputs themselves when a draft
   * holds them all in order (not changed afterwards).
   */
  rows: (InsertInput | StoredInput)[]
  /**
   * Each row's primary key: the value (a {@link Slot} until its id is known), the values of a
   * composite key, or null for a key the server fills.
   */
  keys: unknown[]
  /**
   * Each row's key as canonical forms (see `RowKey.id`); undefined while a part is a slot. The keys
   * themselves once every key is its own canonical form (see `fillSlots`).
   */
  keyIds: (string | readonly string[] | undefined)[]
  /**
   * Per parameter, in the SQL's order (see `PlannedStatement.params`), the rows' cells; none while
   * they are {@link deferred}.
   */
  params: Cell[][]
  /**
   * Set on a large plain insert whose values were checked but not encoded (see `check-insert.ts`):
   * its cells are not made unless something needs them (`makeCells`); sent as COPY, its rows are
   * encoded as they are written (see `copy-rows.ts`). `conflictRefs`: a row references an upsert of
   * the flush (its cells are then made, for the lookups). `held`: its rows are entities, which hold
   * what is sent of them once checked (no `snapshots`).
   */
  deferred?: { readonly conflictRefs: boolean; readonly held: boolean } | undefined
  /** The column each parameter writes or matches (`''` for an expected version). */
  readonly paramColumns: readonly string[]
  /** Per parameter, whether a cell of it may be a slot. */
  readonly slotted: boolean[]
  /**
   * The values the planner reads again, by column, as the rows hold them when planned (references
   * resolved, slots for ids not assigned): foreign-key and unique columns, an upsert's conflict
   * columns (see `capturedColumns`). The key is read from {@link keys}.
   */
  values: Map<string, unknown[]>
  /** Each row's index among the plan's inserts when the server fills its key (else -1), if any does. */
  sources?: number[] | undefined
  /** Each row's sent values (an entity of a flush), filled with the ids once known. */
  snapshots?: (Record<string, unknown> | undefined)[] | undefined
  /**
   * The rows in key order (indexes into the rows), found while checking for repeated keys, when every
   * key was known: null when already in order, undefined when left for the ids.
   */
  order?: Int32Array | null | undefined
  /**
   * Columns whose rows may reference upserted rows, taken by a lookup on their conflict columns, whose
   * values are the last parameters, in this order (see `conflict-ref.ts`).
   */
  lookups?: LookupSql[] | undefined
}

/** The first phase's result: statements in waves (indexes into `statements`). */
export interface FlushDraft {
  readonly statements: readonly StatementDraft[]
  readonly waves: readonly (readonly number[])[]
  /** Whether a cell or a key holds a slot: the ids must be known before completing. */
  readonly slots: boolean
  /**
   * What a flush sends of each entity it inserts or updates (see {@link SentParts}), once
   * `completePlan` built the statements: slot columns filled, a large insert's values taken as it is
   * written.
   */
  readonly sent: () => SentParts | undefined
}

/**
 * What a flush sends of each entity it inserts or updates: entities and their values, aligned, in
 * parts (inserts, then updates, each in the input's order). A part without values, or without a value
 * for an entity: the entity holds what was sent of it (`EntityState.heldSnapshot`: a large insert's,
 * see `checkInsert`).
 */
export type SentParts = readonly (readonly [
  readonly EntityState[],
  readonly (Record<string, unknown> | undefined)[] | undefined,
])[]

/**
 * Whether the rows of `draft` leave part of their key to the server: an insert that does not write
 * every key column. Their keys are unknown until the statement answers: they are not sorted by key,
 * not compared for duplicates, and no fix-up can update them.
 */
export function serverKeyed(draft: Pick<StatementDraft, 'kind' | 'table' | 'columns'>): boolean {
  if (draft.kind !== 'insert') return false
  for (const name of draft.table.primaryKey) if (!draft.columns.includes(name)) return true
  return false
}

/**
 * Whether some row of `draft` has a key known now (`keyIds`): a key holding an id not assigned yet
 * has no canonical form until the ids are drawn, and is another than every key given.
 */
export function someKeyKnown(draft: Pick<StatementDraft, 'keyIds'>): boolean {
  const { keyIds } = draft
  for (let r = 0; r < keyIds.length; r++) if (keyIds[r] !== undefined) return true
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

/**
 * The deterministic statement order: kind (updates, inserts, deletes), table key, plain inserts
 * before upserts, column set, fix-ups after plain updates.
 */
export function compareDrafts(a: StatementDraft, b: StatementDraft): number {
  const byKind = KIND_RANK[a.kind] - KIND_RANK[b.kind]
  if (byKind !== 0) return byKind
  const byTable = compareText(a.table.key, b.table.key)
  if (byTable !== 0) return byTable
  // A table's plain inserts before its upserts: an upsert of a value a create of the flush takes
  // updates that row, whatever columns each was given (else the order, by columns, decided whether
  // the flush committed or failed on the unique value).
  const byUpsert = Number(a.upsert !== undefined) - Number(b.upsert !== undefined)
  if (byUpsert !== 0) return byUpsert
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

/**
 * The values of a draft that captures none (see {@link StatementDraft.values}): shared, so refusing
 * to be written; {@link capturedValues} gives a draft a map of its own the first time it captures.
 */
class NoValues extends Map<string, unknown[]> {
  override set(): this {
    throw errors.internal(
      'NoValues.set',
      'a draft capturing no values was written to: capture through capturedValues',
    )
  }
}

/** What a draft captures no value of yet: no map made per draft (most capture none). */
export const NO_VALUES: Map<string, unknown[]> = new NoValues()

/**
 * The map in which `draft` captures values (see {@link StatementDraft.values}): its own, made the
 * first time.
 *
 * @example
 * capturedValues(draft).set('author_id', cells)
 */
export function capturedValues(draft: StatementDraft): Map<string, unknown[]> {
  if (draft.values === NO_VALUES) draft.values = new Map()
  return draft.values
}
