/**
 * References to upserted rows, resolved in SQL. An upsert's key is not known before its statement runs:
 * the row may exist already, with another key than the id the flush would give it. A new or changed
 * row of the same flush that references it takes the referenced column by a lookup on the upsert's
 * conflict columns, in the statement itself, which runs after the upsert (the upsert's draft is found
 * by the entity, as for a {@link Slot}):
 *
 *   coalesce(d."tag_id"::int8, (select x."id" from "public"."tag" as x where x."name" = d."$l0_0"::text))
 *
 * The conflict values go as extra parameter columns; a row of the statement that references no
 * upserted row sends NULL there (the lookup then finds nothing and is not evaluated: `coalesce` stops
 * at its first non-null argument).
 */
import { errors } from '../../errors.ts'
import type { TableModel } from '../../model/model.ts'
import { resolveReference } from '../../track/changes.ts'
import { type EntityState, stateOf } from '../../track/entity-state.ts'
import { encodeValue, sameValue } from '../../values/index.ts'
import { type Cell, Slot, type StatementDraft } from '../draft.ts'
import type { LookupSql } from '../sql/lookup-sql.ts'

/**
 * A foreign-key cell standing for `column` of an entity upserted in the same flush (`state`): a slot
 * (statements are ordered by it as by any slot) that is never filled with an id, but sent as NULL with
 * the upsert's conflict values beside it.
 *
 * An upsert may meet an existing row: its key is unknown until the server answers, so no id can stand in.
 */
export class ConflictRef extends Slot {}

/**
 * The cell of a reference to `ref` (an upserted entity not flushed yet) in `column`, else undefined.
 * An earlier upsert of the same conflict values stands for the last one, which the flush sends.
 */
export function conflictRefFor(ref: EntityState, column: string): ConflictRef | undefined {
  if (ref.status !== 'new' || ref.upserted === undefined) return undefined
  return new ConflictRef(ref.upserted.by ?? ref, column)
}

/**
 * Turns the {@link ConflictRef} cells of `drafts` (inserts, updates and fix-ups) into lookups: each
 * such cell becomes NULL, and its conflict values go to new parameter columns at the end of the
 * draft's parameters, described by `draft.lookups` (in the order of those columns). Throws
 * `INVALID_VALUE` before anything is sent when a conflict value changed since the upsert, is null, or
 * when one column references upserts of two conflict column sets.
 *
 * An upserted row's key is unknown before the flush, its conflict values known: the server finds it by them.
 */
export function resolveByConflict(drafts: readonly StatementDraft[]): void {
  for (const draft of drafts) {
    if (draft.deferred !== undefined) continue // none of its rows references an upsert (see draftFlush)
    for (let p = 0; p < draft.slotted.length; p++) {
      if (draft.slotted[p]) resolveParam(draft, p)
    }
  }
}

function resolveParam(draft: StatementDraft, p: number): void {
  const cells = draft.params[p]!
  const column = draft.paramColumns[p]!
  let lookup: LookupSql | undefined
  let extras: Cell[][] = []
  let slots = false
  for (let r = 0; r < cells.length; r++) {
    const cell = cells[r]
    if (!(cell instanceof ConflictRef)) {
      if (cell instanceof Slot) slots = true
      continue
    }
    const state = cell.state!
    const { conflict } = state.upserted!
    if (lookup === undefined) {
      lookup = { column, target: state.table, targetColumn: cell.column, conflict }
      extras = conflict.map(() => new Array<Cell>(cells.length).fill(null))
    } else if (!sameLookup(lookup, state.table, cell.column, conflict)) {
      throw errors.upsertReferenceInvalid(
        draft.table.key,
        column,
        state.table.key,
        'rows of one flush reference upserts of different conflict columns through it.',
      )
    }
    const texts = conflictTexts(draft.table, column, state)
    for (let i = 0; i < texts.length; i++) extras[i]![r] = texts[i]!
    cells[r] = null
  }
  if (lookup === undefined) return
  draft.slotted[p] = slots
  for (const extra of extras) {
    draft.params.push(extra)
    draft.slotted.push(false)
  }
  draft.lookups ??= []
  draft.lookups.push(lookup)
}

function sameLookup(a: LookupSql, target: TableModel, column: string, conflict: readonly string[]): boolean {
  return (
    a.target === target &&
    a.targetColumn === column &&
    a.conflict.length === conflict.length &&
    a.conflict.every((name, i) => name === conflict[i])
  )
}

/**
 * The texts of the conflict values of the upserted `state`, as its conflict columns encode them:
 * unchanged since the upsert (else the lookup could find another row than the one upserted) and not
 * null (a null never conflicts: the row could not be found again).
 */
function conflictTexts(table: TableModel, column: string, state: EntityState): string[] {
  const { conflict, values } = state.upserted!
  const target = state.table
  return conflict.map((name, i) => {
    const model = target.columnsByName.get(name)!
    const now = state.row[name]
    const invalid = (why: string) => errors.upsertReferenceInvalid(table.key, column, target.key, why)
    // The same entity given at upsert() is unchanged (an entity is no value its column compares).
    if (now !== values[i] && !sameValue(now, values[i], model))
      throw invalid(`its conflict column "${name}" was changed after upsert(); upsert again instead.`)
    const value = resolveReference(now, model, target, state.owner)
    if ((value === undefined || value === null) && stateOf(now) !== undefined)
      throw invalid(
        `its conflict column "${name}" holds a new entity whose key this flush gives: the row cannot be looked up by it in the same flush (flush the upsert first).`,
      )
    if (value === undefined || value === null)
      throw invalid(`its conflict column "${name}" is null, which never conflicts: the row cannot be found.`)
    return encodeValue(value, model, { table: target.key })!
  })
}
