import type { TableModel } from '../model/model.ts'
import { normalizeKeyValue } from '../values/index.ts'
import {
  type FlushDraft,
  type IdSource,
  Slot,
  type StatementDraft,
  slotEntity,
  someKeyKnown,
} from './draft.ts'
import { valueAt } from './order/dependency-graph.ts'
import { SentRows } from './sent-rows.ts'
import { type BuildOptions, buildStatement } from './statements/build-statement.ts'
import type { FlushPlan, PlannedStatement, SentValues } from './types.ts'

/** A plan and what it sends of each entity (their snapshots once it committed). */
export interface CompletedPlan {
  readonly plan: FlushPlan
  readonly sent: SentValues
  /**
   * The data of the COPY statements written from their rows (see `copyRows`), whose `params` are
   * empty; any other COPY statement's data is made of its `params`.
   */
  readonly copies: ReadonlyMap<PlannedStatement, Iterable<Buffer>>
}

/**
 * The second phase of planning (see `draftFlush`), once the ids are known (`ids` gives the id of an
 * entity's key column: the row's own value after `assignIds`): fills every slot, orders each
 * statement's rows, builds its SQL, what it reads back and whether it goes as COPY (`options`), and
 * completes what the flush sends of each entity. Consumes the draft (its cells are filled in place).
 * The data of a large insert whose values were only checked is written as it is sent (see `copyRows`).
 *
 * Only what needs the ids waits for them: the rest was checked before a connection was reserved.
 */
export function completePlan(draft: FlushDraft, ids: IdSource, options: BuildOptions): CompletedPlan {
  const { statements } = draft
  const copies = new Map<PlannedStatement, Iterable<Buffer>>()
  const waves = draft.waves.map((wave) =>
    wave.map((i) => buildStatement(statements[i]!, ids, options, copies)),
  )
  return { plan: { waves }, sent: new SentRows(draft.sent() ?? []), copies }
}

/** The id a slot of row `r` of `draft` stands for, normalized for `column` of `table`. */
function slotId(
  draft: StatementDraft,
  r: number,
  slot: Slot,
  ids: IdSource,
  table: TableModel,
  column: string,
) {
  const id = ids(slotEntity(slot, draft.rows[r]!), slot.column)
  return id === undefined || id === null ? undefined : normalizeKeyValue(id, table.columnsByName.get(column)!)
}

/**
 * The tuple of `columns` of row `r` of `draft` (canonical forms joined), the slots filled with their
 * ids: when `slotted`, of a row holding a slot there (a new row's id), else of a row holding none (a
 * value the application gave: a key of the table's rows, or a foreign key pointing at these columns).
 * Undefined for any other row, or a tuple with a null. A string per row, no other object.
 */
function tupleOf(
  draft: StatementDraft,
  r: number,
  columns: readonly string[],
  target: TableModel,
  targetColumns: readonly string[],
  ids: IdSource,
  slotted: boolean,
): string | undefined {
  let id = ''
  let holdsSlot = false
  for (let i = 0; i < columns.length; i++) {
    let value = valueAt(draft, r, columns[i]!)
    if (value instanceof Slot) {
      if (!slotted) return undefined
      holdsSlot = true
      value = slotId(draft, r, value, ids, target, targetColumns[i]!)
      if (value === undefined) return undefined
    } else if (value === undefined || value === null) return undefined
    else value = normalizeKeyValue(value, draft.table.columnsByName.get(columns[i]!)!)
    id = i === 0 ? (value as string) : `${id}\u0000${value as string}`
  }
  return holdsSlot === slotted ? id : undefined
}

/**
 * Whether a value the application gave is one of the ids the draft's slots stand for now, where the
 * draft would differ for it: a key of a row of a table whose new rows got ids (a repeated key), or a
 * foreign key into such rows (a reference the draft did not order). Then the flush drafts again with
 * the ids in the rows, which finds the repeated key or orders the reference. Only tables with new rows
 * holding slots in those columns are looked at.
 */
export function givesAssignedId(draft: FlushDraft, ids: IdSource): boolean {
  if (!draft.slots) return false
  const { statements } = draft
  // Found with plain loops, nothing built unless a row holds a value the application gave (the usual
  // flush of new rows referencing each other holds none): this runs on every flush with new rows.
  let targets: TableModel[] | undefined
  for (const d of statements) {
    if (d.kind !== 'insert' || !d.slotted.includes(true)) continue
    if (targets === undefined) targets = [d.table]
    else if (!targets.includes(d.table)) targets.push(d.table)
  }
  if (targets === undefined) return false
  const filled = new Map<string, Set<string>>()
  for (const target of targets) {
    for (const from of statements) {
      if (
        from.table === target &&
        someKeyKnown(from) &&
        givesOne(draft, filled, target, target.primaryKey, from, target.primaryKey, ids)
      )
        return true
      for (const fk of from.table.foreignKeys) {
        if (
          fk.target === target.key &&
          givesOne(draft, filled, target, fk.targetColumns, from, fk.columns, ids)
        )
          return true
      }
    }
  }
  return false
}

/**
 * Whether a row of `from` gives, in `via`, a tuple of the application's that one of the new rows of
 * `target` holding slots in `columns` now has (see {@link givesAssignedId}). The new rows' tuples are
 * found once per target and columns (`filled`), and only when `from` gives one.
 */
function givesOne(
  draft: FlushDraft,
  filled: Map<string, Set<string>>,
  target: TableModel,
  columns: readonly string[],
  from: StatementDraft,
  via: readonly string[],
  ids: IdSource,
): boolean {
  let ofTarget: Set<string> | undefined
  for (let r = 0; r < from.rows.length; r++) {
    const tuple = tupleOf(from, r, via, target, columns, ids, false)
    if (tuple === undefined) continue
    ofTarget ??= slottedTuples(draft, filled, target, columns, ids)
    if (ofTarget.has(tuple)) return true
  }
  return false
}

/** The tuples of `columns` of the new rows of `target` holding slots there, found once (`filled`). */
function slottedTuples(
  draft: FlushDraft,
  filled: Map<string, Set<string>>,
  target: TableModel,
  columns: readonly string[],
  ids: IdSource,
): Set<string> {
  const key = `${target.key}\u0000${columns.join('\u0000')}`
  let ofTarget = filled.get(key)
  if (ofTarget === undefined) {
    ofTarget = new Set()
    for (const insert of draft.statements) {
      if (insert.table !== target || insert.kind !== 'insert' || !insert.slotted.includes(true)) continue
      for (let r = 0; r < insert.rows.length; r++) {
        const tuple = tupleOf(insert, r, columns, target, columns, ids, true)
        if (tuple !== undefined) ofTarget.add(tuple)
      }
    }
    filled.set(key, ofTarget)
  }
  return ofTarget
}
