import { errors } from '../../errors.ts'
import type { ColumnModel, SchemaModel, TableModel } from '../../model/model.ts'
import { columnOf } from '../../schema/checks.ts'
import type { EntityState } from '../../track/entity-state.ts'
import { emptyRowOf } from '../../track/row.ts'
import { snapshotValue } from '../../track/snapshot.ts'
import { encodeKeyValue, encodeValue, type ValueLocation } from '../../values/index.ts'
import { versionValue } from '../../values/mapping.ts'
import {
  type Cell,
  capturedValues,
  type InsertInput,
  Slot,
  type StatementDraft,
  type StoredInput,
} from '../draft.ts'
import { copiesRows } from '../statements/copy-statements.ts'
import { type FormOptions, statementForms, statementShape } from '../statements/statement-shape.ts'
import { capturedColumns } from './captured-columns.ts'
import { insertCell, insertColumns, setCell, setColumns, tableOf } from './cells.ts'
import { checkInsert } from './check-insert.ts'
import { ConflictRef } from './conflict-ref.ts'
import { keyPart, RowLocation } from './row-key.ts'
import { noteSentReference } from './sent-references.ts'

/**
 * Where values are encoded column by column: a failure there is found again row by row (see
 * {@link firstBadValue}), which names the row.
 */
const UNLOCATED: ValueLocation = { table: '' }

/** What no value is: the first row of a column is never "the same as the previous one". */
const NOTHING = Symbol('nothing')

/**
 * Encodes the cells of every draft, column by column (one codec per column; a value repeating the
 * previous row's, such as one Date object given to every row, is encoded and copied once), and takes
 * what a flush sends of each entity (`snapshots`): its values as encoded, copies of objects, in table
 * order. A value that does not encode is reported as the rows in `inputs` order find it first (see
 * {@link firstBadValue}). Cells holding a slot stay slots.
 *
 * With `options`, an insert that goes as COPY (see `statementForms`) is only checked, its cells made
 * when needed (see `checkInsert`).
 *
 * Values go to the server as text: each is encoded, and checked, before anything is sent.
 */
export function encodeDrafts(
  schema: SchemaModel,
  drafts: readonly StatementDraft[],
  inputs: readonly (InsertInput | StoredInput)[],
  kind: 'insert' | 'update' | 'delete',
  options?: FormOptions,
): void {
  try {
    for (const draft of drafts) {
      if (draft.kind !== 'insert') encodeStored(draft)
      else if (
        options?.copyRows !== undefined &&
        draft.rows.length >= options.copyRows &&
        sentAsCopy(draft, options)
      )
        checkInsert(draft)
      else encodeInsert(draft)
    }
  } catch (e) {
    if (kind === 'insert') firstBadValue(schema, inputs as readonly InsertInput[], inputs.length)
    else firstBadValue(schema, inputs as readonly StoredInput[], inputs.length, kind)
    throw e
  }
}

/** Whether an insert draft goes as COPY (see `statementForms`): its size first, the cheapest to tell. */
function sentAsCopy(draft: StatementDraft, options: FormOptions): boolean {
  if (!copiesRows(draft.table, draft.rows.length, options.copyRows ?? Number.POSITIVE_INFINITY)) return false
  return statementForms(draft, statementShape(draft), options).copy
}

/**
 * Makes the cells (and what it sends of its entities) of a draft whose values were only checked (see
 * {@link StatementDraft.deferred}), from its rows as they are now: slots where an id is not assigned
 * yet, ids where it is. A value changed since it was checked that does not encode is `INVALID_VALUE`
 * naming its row. Nothing to do for a draft whose cells are made.
 */
export function makeCells(draft: StatementDraft): void {
  const deferred = draft.deferred
  if (deferred === undefined) return
  try {
    encodeInsert(draft)
  } catch (e) {
    firstBadRow(draft)
    throw e
  }
  draft.deferred = undefined
  // What its entities held as sent is in its snapshots now.
  if (deferred.held) for (const row of draft.rows) (row as EntityState).heldSnapshot = null
}

function encodeInsert(draft: StatementDraft): void {
  const { table, columns, rows } = draft
  const n = rows.length
  const first = rows[0] as InsertInput
  const snapshots = first.owner !== undefined && draft.upsert === undefined ? emptyRows(table, n) : undefined
  const params: Cell[][] = new Array(columns.length)
  let c = 0
  for (const column of table.columns) {
    if (c < columns.length && columns[c] === column.name) {
      params[c] = encodeColumn(draft, c, column, snapshots)
      c++
    }
  }
  draft.params = params
  draft.snapshots = snapshots
}

/**
 * `n` snapshots of `table`, each holding every column (undefined) in table order, filled column by
 * column afterwards: made whole at once, they take one shape and keep their values inside the object.
 */
function emptyRows(table: TableModel, n: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = new Array(n)
  const columns = table.columns
  for (let r = 0; r < n; r++) {
    const row = emptyRowOf(table, 'snapshot')
    for (let c = 0; c < columns.length; c++) row[columns[c]!.name] = undefined
    out[r] = row
  }
  return out
}

/** The cells of `column` (parameter `p`) for every row of an insert draft, and its values in `snapshots`. */
function encodeColumn(
  draft: StatementDraft,
  p: number,
  column: ColumnModel,
  snapshots: Record<string, unknown>[] | undefined,
): Cell[] {
  const { table, rows } = draft
  const name = column.name
  const cells: Cell[] = new Array(rows.length)
  const captured = capturedColumns(table, draft.upsert).has(name)
    ? new Array<unknown>(rows.length)
    : undefined
  if (captured !== undefined) capturedValues(draft).set(name, captured)
  let previous: unknown = NOTHING
  let text: string | null = null
  let copy: unknown
  for (let r = 0; r < rows.length; r++) {
    const value = insertCell(rows[r] as InsertInput, column, table)
    if (captured !== undefined) captured[r] = value
    if (value instanceof Slot) {
      cells[r] = value
      draft.slotted[p] = true
      if (snapshots !== undefined) {
        snapshots[r]![name] = undefined
        // An upsert's key comes with the answer: the snapshot takes it then (see `sentReference`).
        if (value instanceof ConflictRef && value.state !== undefined)
          noteSentReference(snapshots[r]!, name, value.state)
      }
      continue
    }
    if (value !== previous) {
      text = encodeValue(value, column, UNLOCATED)
      if (snapshots !== undefined) copy = snapshotValue(table, name, value)
      previous = value
    }
    cells[r] = text
    if (snapshots !== undefined) snapshots[r]![name] = copy
  }
  return cells
}

/** The cells of an update or delete draft: its key, its set columns, its expected version. */
function encodeStored(draft: StatementDraft): void {
  const { table, columns, rows, keys } = draft
  const n = rows.length
  const params: Cell[][] = []
  const parts = table.primaryKey.length
  for (let i = 0; i < parts; i++) {
    const column = columnOf(table, table.primaryKey[i]!)
    const cells: Cell[] = new Array(n)
    for (let r = 0; r < n; r++) cells[r] = encodeKeyValue(keyPart(keys[r], i, parts), column, UNLOCATED) ?? ''
    params.push(cells)
  }
  const capture = capturedColumns(table, undefined)
  for (const name of columns) {
    const column = columnOf(table, name)
    const cells: Cell[] = new Array(n)
    const captured = capture.has(name) ? new Array<unknown>(n) : undefined
    if (captured !== undefined) capturedValues(draft).set(name, captured)
    for (let r = 0; r < n; r++) {
      const value = setCell(rows[r] as StoredInput, column, table)
      if (captured !== undefined) captured[r] = value
      if (value instanceof Slot) draft.slotted[params.length] = true
      cells[r] = value instanceof Slot ? value : encodeValue(value, column, UNLOCATED)
    }
    params.push(cells)
  }
  const version = table.versionColumn === null ? undefined : columnOf(table, table.versionColumn)
  const versions: Cell[] = new Array(n)
  for (let r = 0; r < n; r++) {
    const expected = (rows[r] as StoredInput).expectedVersion
    versions[r] = versionText(table, expected, keys[r], version, UNLOCATED)
  }
  if (version !== undefined) params.push(versions)
  draft.params = params
  if (draft.kind === 'update' && (rows[0] as StoredInput).state !== undefined) {
    draft.snapshots = rows.map((row) => updatedSnapshot(row as StoredInput, columns, table))
  }
}

/** An expected version's text; one for a table without version column (`version`) is an error. */
function versionText(
  table: TableModel,
  expected: number | undefined,
  key: unknown,
  version: ColumnModel | undefined,
  at: ValueLocation,
): string | null {
  if (expected === undefined) return null
  if (version === undefined)
    throw errors.invalidChange(
      table.key,
      'an expected version was given but the table has no version column.',
      {
        keys: [key],
      },
    )
  return encodeValue(expected, version, at)
}

/**
 * What an update sends of its entity: its snapshot, the set values (copies of objects), the version
 * incremented. The columns it does not set keep the snapshot's values themselves, not copies: a
 * snapshot's values are its own (copied when they were taken) and never changed in place.
 */
function updatedSnapshot(
  row: StoredInput,
  columns: readonly string[],
  table: TableModel,
): Record<string, unknown> {
  const state = row.state as EntityState
  const old = state.snapshot
  const out = emptyRowOf(table, 'snapshot')
  const all = table.columns
  for (let i = 0; i < all.length; i++) {
    const name = all[i]!.name
    out[name] = old?.[name]
  }
  for (let i = 0; i < columns.length; i++) {
    const name = columns[i]!
    const value = setCell(row, columnOf(table, name), table)
    out[name] = value instanceof Slot ? undefined : snapshotValue(table, name, value)
    // An upsert's key comes with the answer: the snapshot takes it then (see `sentReference`).
    if (value instanceof ConflictRef && value.state !== undefined) noteSentReference(out, name, value.state)
  }
  const version = table.versionColumn
  if (version) out[version] = versionValue(Number(old?.[version]) + 1, columnOf(table, version))
  return out
}

/** The location of a row for messages: its key values (a part the server fills left out). */
function locationOf<R>(
  table: TableModel,
  row: R,
  read: (row: R, column: ColumnModel, table: TableModel) => unknown,
) {
  return new RowLocation(
    table,
    table.primaryKey.map((name) => read(row, columnOf(table, name), table) ?? undefined),
  )
}

/** Encodes the rows of an insert draft one after the other, naming each: throws the first bad value. */
function firstBadRow(draft: StatementDraft): void {
  const { table, rows, columns } = draft
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as InsertInput
    const at = locationOf(table, row, insertCell)
    for (const name of columns) {
      const column = columnOf(table, name)
      const value = insertCell(row, column, table)
      if (!(value instanceof Slot)) encodeValue(value, column, at)
    }
  }
}

/**
 * Encodes the rows `[0, upTo)` of `inputs` one after the other, each column of a row in turn, naming
 * each row: throws the first value that does not encode, as a row-by-row check meets it. Returns when
 * every one encodes.
 *
 * Encoding column by column meets errors out of row order; this finds the one a row-by-row check would.
 */
export function firstBadValue(
  schema: SchemaModel,
  inputs: readonly (InsertInput | StoredInput)[],
  upTo: number,
  kind: 'insert' | 'update' | 'delete' = 'insert',
): void {
  for (let i = 0; i < upTo; i++) {
    const input = inputs[i]!
    const table = tableOf(schema, input.table)
    if (kind === 'insert') {
      const row = input as InsertInput
      const at = locationOf(table, row, insertCell)
      for (const name of insertColumns(table, row)) {
        const column = columnOf(table, name)
        const value = insertCell(row, column, table)
        if (!(value instanceof Slot)) encodeValue(value, column, at)
      }
      continue
    }
    const row = input as StoredInput
    if (kind === 'update' && row.set.length === 0) continue
    const at = locationOf(table, row, (r, column) => r.key[column.name])
    for (const name of table.primaryKey) encodeKeyValue(row.key[name], columnOf(table, name), at)
    for (const name of kind === 'update' ? setColumns(table, row.set) : []) {
      const column = columnOf(table, name)
      const value = setCell(row, column, table)
      if (!(value instanceof Slot)) encodeValue(value, column, at)
    }
    const version = table.versionColumn === null ? undefined : columnOf(table, table.versionColumn)
    const keys = table.primaryKey.map((name) => row.key[name])
    versionText(table, row.expectedVersion, keys.length === 1 ? keys[0] : keys, version, at)
  }
}
