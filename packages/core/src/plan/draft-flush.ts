import type { SchemaModel } from '../model/model.ts'
import type { EntityState } from '../track/entity-state.ts'
import type { FlushDraft, InsertInput, PlanInput, SentParts, StatementDraft, StoredInput } from './draft.ts'
import { orderStatements } from './order/order-statements.ts'
import { splitHandoffs } from './order/unique-handoffs.ts'
import { resolveByConflict } from './rows/conflict-ref.ts'
import { checkDistinctRows } from './rows/distinct-rows.ts'
import { encodeDrafts, makeCells } from './rows/encode-cells.ts'
import { groupInserts, groupStored } from './rows/group-rows.ts'
import type { FormOptions } from './statements/statement-shape.ts'

type Snapshot = Record<string, unknown>

/**
 * The first phase of planning a flush, before a connection is reserved and whatever the ids: validates
 * and encodes every value (column by column), groups the rows into statements (insert per table and
 * written columns, update per table and set columns, delete per table), rejects a row written twice,
 * and orders the statements in waves by foreign key (fix-ups breaking nullable cycles included; see
 * `orderStatements`). A cell whose value is a new row's id not assigned yet is a slot pointing at that
 * row (one upserted by the flush: a lookup by its conflict key, see `conflict-ref.ts`); `completePlan`
 * fills them once the ids are known. Bad input fails here, naming the first bad row in the input's order. Pure: no I/O; the entities are only read.
 * `options`: the forms of the statements (`copyRows`, `serverValues`): an insert sent as COPY is only
 * checked here (see `checkInsert`).
 */
export function draftFlush(schema: SchemaModel, input: PlanInput, options?: DraftOptions): FlushDraft {
  const inserts = groupInserts(schema, input.inserts)
  encodeDrafts(schema, inserts, input.inserts, 'insert', options)
  const grouped = groupStored(schema, input.updates, 'update')
  encodeDrafts(schema, grouped, input.updates, 'update')
  // Rows of one update handing unique values to each other go in statements of their own.
  const updates = splitHandoffs(grouped)
  const deletes = groupStored(schema, input.deletes, 'delete')
  encodeDrafts(schema, deletes, input.deletes, 'delete')
  checkDistinctRows(updates.length + deletes.length === 0 ? inserts : [...inserts, ...updates, ...deletes])
  const { statements, waves } = orderStatements(schema, inserts, updates, deletes)
  // A reference to an upsert becomes a lookup, made of the cells: only an upsert of this flush is
  // referenced so (an upserted entity is new until its flush), and the usual flush has none.
  let upserts = false
  for (let i = 0; i < inserts.length && !upserts; i++) upserts = inserts[i]!.upsert !== undefined
  if (upserts) {
    for (const draft of statements) if (draft.deferred?.conflictRefs) makeCells(draft)
    resolveByConflict(statements)
  }
  // Taken once the statements are built: a large insert's sent values are made as it is written.
  const sent = () => sentValues(input, inserts, updates)
  let slots = false
  // Some cell or key holds an id not assigned yet.
  for (let i = 0; i < statements.length && !slots; i++)
    slots = statements[i]!.slotted.includes(true) || statements[i]!.keyIds.includes(undefined)
  return { statements, waves, slots, sent }
}

/**
 * What the first phase of planning takes besides the rows: with them, an insert that goes as COPY
 * (see `statementForms`) has its values checked now and encoded when written (see `checkInsert`).
 * Without: every value is encoded now.
 */
export type DraftOptions = FormOptions

/**
 * What the flush sends of each entity, inserts then updates, each in the input's order: a draft's
 * rows and snapshots as they are when one draft holds them all (the usual large flush), else put back
 * in order.
 */
function sentValues(
  input: PlanInput,
  inserts: readonly StatementDraft[],
  updates: readonly StatementDraft[],
): SentParts | undefined {
  const parts = [
    ...inOrder(
      input.inserts,
      (row) => (row.owner !== undefined && row.upsert === undefined ? row : undefined),
      inserts,
    ),
    ...inOrder(input.updates, (row) => row.state, updates),
  ]
  return parts.length === 0 ? undefined : parts
}

/**
 * The entities of `rows` (`entityOf`) and their snapshots, aligned, in the order of `rows`; none
 * (undefined) where the entity holds what is sent of it (a large insert's: see `StatementDraft.deferred`).
 */
function inOrder<R extends InsertInput | StoredInput>(
  rows: readonly R[],
  entityOf: (row: R) => InsertInput | EntityState | undefined,
  drafts: readonly StatementDraft[],
): SentParts[number][] {
  const holding = drafts.filter((d) => d.snapshots !== undefined || d.deferred?.held === true)
  if (holding.length === 0) return []
  let count = 0
  for (let r = 0; r < rows.length; r++) if (entityOf(rows[r]!) !== undefined) count++
  const only = holding[0]!
  if (holding.length === 1 && only.rows.length === count) {
    const states = only.kind === 'insert' ? only.rows : only.rows.map((row) => entityOf(row as R))
    return [[states as EntityState[], only.snapshots as Snapshot[] | undefined]]
  }
  return (
    (holding.length <= FEW_DRAFTS && byCursors(rows, entityOf, holding)) || byMap(rows, entityOf, holding)
  )
}

/**
 * {@link inOrder} for a few drafts: a draft holds its rows in the input's order, so the row of a draft
 * met next is at that draft's cursor, found by looking at the few cursors (no map of every row).
 * Undefined when an entity's row is at no cursor: then {@link byMap} finds them.
 */
function byCursors<R extends InsertInput | StoredInput>(
  rows: readonly R[],
  entityOf: (row: R) => InsertInput | EntityState | undefined,
  holding: readonly StatementDraft[],
): SentParts[number][] | undefined {
  const states: EntityState[] = []
  const snapshots: (Snapshot | undefined)[] = []
  const cursors = new Array<number>(holding.length).fill(0)
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!
    let d = 0
    for (; d < holding.length; d++) if (holding[d]!.rows[cursors[d]!] === row) break
    const state = entityOf(row)
    if (d === holding.length) {
      if (state === undefined) continue
      return undefined
    }
    const at = cursors[d]!
    cursors[d] = at + 1
    if (state === undefined) continue
    states.push(state as EntityState)
    snapshots.push(holding[d]!.snapshots?.[at])
  }
  return [[states, snapshots]]
}

/** {@link inOrder} by a map from each row of `holding` to its snapshot. */
function byMap<R extends InsertInput | StoredInput>(
  rows: readonly R[],
  entityOf: (row: R) => InsertInput | EntityState | undefined,
  holding: readonly StatementDraft[],
): SentParts[number][] {
  const byRow = new Map<unknown, Snapshot | undefined>()
  for (const draft of holding)
    for (let r = 0; r < draft.rows.length; r++) byRow.set(draft.rows[r], draft.snapshots?.[r])
  const states: EntityState[] = []
  const snapshots: (Snapshot | undefined)[] = []
  for (const row of rows) {
    const state = entityOf(row)
    if (state === undefined) continue
    states.push(state as EntityState)
    snapshots.push(byRow.get(row))
  }
  return [[states, snapshots]]
}

/** Up to this many drafts holding snapshots, {@link inOrder} walks them with cursors; past it, a map. */
const FEW_DRAFTS = 16
