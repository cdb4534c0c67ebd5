import { errors } from '../../errors.ts'
import type { ColumnModel, TableModel } from '../../model/model.ts'
import { columnOf } from '../../schema/checks.ts'
import {
  compareKeyValues,
  encodeValue,
  normalizeKeyValue,
  referencingValue,
  type ValueLocation,
} from '../../values/index.ts'
import { describeKeyValue } from '../../values/location.ts'
import { type IdSource, Slot, type StatementDraft, serverKeyed, slotEntity } from '../draft.ts'
import { valueAt } from '../order/dependency-graph.ts'
import { inOrder, type KeyId, keyOrder, sameKey } from '../order/row-order.ts'
import { makeCells } from '../rows/encode-cells.ts'
import { rowLocation } from '../rows/row-key.ts'
import { copySql } from '../sql/copy-sql.ts'
import type { PlannedStatement } from '../types.ts'
import { copyRows } from './copy-rows.ts'
import { lookupStatement } from './lookup-statement.ts'
import { type FormOptions, type StatementShape, statementForms, statementShape } from './statement-shape.ts'

/** What turns drafts into the statements a flush sends (see `FormOptions`). */
export type BuildOptions = FormOptions

/** The id a slot of row `r` stands for. */
function idOf(draft: StatementDraft, r: number, slot: Slot, ids: IdSource): unknown {
  return ids(slotEntity(slot, draft.rows[r]!), slot.column)
}

/** An assigned id's text for `column`; the location of an error made only when one is thrown. */
function encodeId(id: unknown, column: ColumnModel, table: TableModel): string | null {
  try {
    return encodeValue(id, column, UNLOCATED)
  } catch {
    return encodeValue(id, column, rowLocation(table, undefined))
  }
}

/** Where an id is encoded until it fails (see {@link encodeId}). */
const UNLOCATED: ValueLocation = { table: '' }

/**
 * Writes the ids into the draft's slots: each cell's text (the id encoded for the cell's column),
 * each sent value, each key, and the keys' canonical forms (the keys themselves when they are their
 * own: one array of a million keys, not two).
 */
function fillSlots(draft: StatementDraft, ids: IdSource): void {
  const { table, params, paramColumns, snapshots, keys, keyIds } = draft
  for (let p = 0; p < params.length; p++) {
    if (!draft.slotted[p]) continue
    const cells = params[p]!
    const name = paramColumns[p]!
    const column = columnOf(table, name)
    for (let r = 0; r < cells.length; r++) {
      const cell = cells[r]
      if (!(cell instanceof Slot)) continue
      // As the cell's column holds it (an int8 id given to an int4 foreign key is a number).
      const id = referencingValue(idOf(draft, r, cell, ids), column)
      cells[r] = encodeId(id, column, table)
      const snapshot = snapshots?.[r]
      if (snapshot !== undefined) snapshot[name] = id
    }
  }
  const parts = table.primaryKey.length
  // Single keys that are their own canonical forms (ids as given) need no second array.
  let own = parts === 1
  for (let r = 0; r < keys.length; r++) {
    if (keyIds[r] === undefined) {
      const key = keys[r]
      if (key instanceof Slot) {
        const id = referencingValue(idOf(draft, r, key, ids), columnOf(table, table.primaryKey[0]!))
        keys[r] = id
        keyIds[r] = normalizeKeyValue(id, columnOf(table, table.primaryKey[0]!))
      } else if (parts > 1 && Array.isArray(key)) {
        const filled = key.map((part, i) =>
          part instanceof Slot
            ? referencingValue(idOf(draft, r, part, ids), columnOf(table, table.primaryKey[i]!))
            : part,
        )
        keys[r] = filled
        keyIds[r] = filled.map((part, i) =>
          part === undefined ? '' : normalizeKeyValue(part, columnOf(table, table.primaryKey[i]!)),
        )
      }
    }
    own = own && keyIds[r] === keys[r]
  }
  if (own && keys.length > 0) draft.keyIds = keys as string[]
}

/** Orders upsert rows by their conflict columns: concurrent upserts lock the same rows in one order. */
function conflictOrder(draft: StatementDraft, ids: IdSource): Int32Array | null {
  const { table, upsert } = draft
  const columns = upsert!.conflict.map((name) => columnOf(table, name))
  const values = columns.map((column) =>
    draft.rows.map((_, r) => {
      const value = valueAt(draft, r, column.name)
      return value instanceof Slot ? referencingValue(idOf(draft, r, value, ids), column) : value
    }),
  )
  const order = new Int32Array(draft.rows.length)
  for (let r = 0; r < order.length; r++) order[r] = r
  order.sort((a, b) => {
    for (let c = 0; c < columns.length; c++) {
      const byColumn = compareKeyValues(values[c]![a], values[c]![b], columns[c]!)
      if (byColumn !== 0) return byColumn
    }
    return a - b
  })
  for (let r = 0; r < order.length; r++) if (order[r] !== r) return order
  return null
}

/**
 * The order rows are sent in (see {@link buildStatement}). Rows of one key found while ordering rows
 * whose ids were just assigned (ids are never given twice: a bug) fail as they would have when drafted.
 */
function rowOrder(draft: StatementDraft, ids: IdSource): Int32Array | null {
  if (draft.rows.length < 2) return null // one row: in order, and no key repeated
  if (draft.upsert !== undefined) return conflictOrder(draft, ids)
  // Rows whose key the server fills keep the plan's order: their keys come back in it.
  if (serverKeyed(draft)) return null
  if (draft.order !== undefined) return draft.order
  const keyIds = draft.keyIds as readonly KeyId[]
  const order = keyOrder(draft.table, keyIds)
  const same = repeatedKey(keyIds, order)
  if (same >= 0)
    throw errors.duplicateNewKey(draft.table.key, describeKeyValue(draft.keys[same]), draft.keys[same])
  return order
}

/** A row whose key the row before it in `order` has too, or -1. */
function repeatedKey(keyIds: readonly KeyId[], order: Int32Array | null): number {
  for (let i = 1; i < keyIds.length; i++) {
    const a = order ? order[i - 1]! : i - 1
    const b = order ? order[i]! : i
    if (sameKey(keyIds[a]!, keyIds[b]!)) return b
  }
  return -1
}

/**
 * The statement of `shape` with its rows (`keys`, `params`), its text `sql` and what it reads back
 * (`returning`): fields in the order a spread of the shape gives them, the usual statement (no upsert,
 * no server-filled keys) as one literal, no object copied into another.
 */
function planned(
  shape: StatementShape,
  keys: unknown[],
  params: (string | null)[][],
  sql: string,
  returning: readonly string[] | undefined,
): PlannedStatement {
  const { kind, table, rowCount, fixup, columns } = shape
  if (shape.upsert === undefined && !('sources' in shape)) {
    return returning === undefined
      ? { kind, table, rowCount, fixup, columns, sql, keys, params }
      : { kind, table, rowCount, fixup, columns, sql, keys, params, returning }
  }
  const base = { ...shape, sql, keys, params }
  return returning === undefined ? base : { ...base, returning }
}

/**
 * Turns a draft into its {@link PlannedStatement} once the ids are known (`ids`): its slots filled,
 * its rows sorted by primary key (upserts by conflict columns; an insert of rows whose key the server
 * fills keeps their order and lists their `sources`), the SQL text from the (table, kind, column set,
 * one row or several) only, the rows' texts of each parameter column in the SQL's order (sent as one
 * `text[]` each, or for one row as the texts themselves), what it reads back (`serverValues`) and
 * whether it goes as COPY (`copyRows`; never one whose rows reference upserted rows: see
 * `lookup-statement.ts`). Writes into the draft: a draft is built once. A draft whose values were only
 * checked (`StatementDraft.deferred`) that goes as COPY is written from its rows into `copies` (when
 * given), its `params` empty; any other gets its cells made first.
 *
 * The text depending on the shape only, a connection prepares it once, whatever the number of rows.
 */
export function buildStatement(
  draft: StatementDraft,
  ids: IdSource,
  options: BuildOptions,
  copies?: Map<PlannedStatement, Iterable<Buffer>>,
): PlannedStatement {
  const shape = statementShape(draft)
  const { returning, copy } = statementForms(draft, shape, options)
  const lookups = draft.lookups !== undefined
  // A deferred insert sent as COPY is written from its rows; any other statement sends its cells.
  const fromRows = copy && draft.deferred !== undefined && copies !== undefined
  if (!fromRows && draft.deferred !== undefined) makeCells(draft)
  fillSlots(draft, ids)
  const order = rowOrder(draft, ids)
  const keys = inOrder(draft.keys, order)
  const params = draft.params.map((cells) => inOrder(cells as (string | null)[], order))
  const base = planned(shape, keys, params, shape.sql, undefined)
  if (lookups) return lookupStatement(draft, base, options.serverValues)
  if (returning !== undefined) return planned(shape, keys, params, returning.sql, returning.returning)
  if (!copy) return base
  const statement: PlannedStatement = { ...base, sql: copySql(draft.table, draft.columns), copy: true }
  if (fromRows) copies.set(statement, copyRows(draft, order, ids))
  return statement
}
