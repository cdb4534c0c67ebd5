import { errors } from '../../errors.ts'
import type { ColumnModel, SchemaModel, TableModel } from '../../model/model.ts'
import { columnOf } from '../../schema/checks.ts'
import { keyFills } from '../../schema/key-fill.ts'
import { perTable } from '../../schema/per-table.ts'
import { sameShape } from '../../track/row.ts'
import {
  compareDrafts,
  type InsertInput,
  NO_VALUES,
  type StatementDraft,
  type StoredInput,
  upsertId,
} from '../draft.ts'
import type { RowValues, StatementKind, UpsertSpec } from '../types.ts'
import { insertCell, insertColumns, setColumns, tableOf } from './cells.ts'
import { firstBadValue } from './encode-cells.ts'
import { type RowKey, rowKeyOf } from './row-key.ts'

/**
 * An upsert's conflict columns must be supplied by the row; update columns must be supplied, and be
 * neither keys nor the version column (which the upsert increments: a value written there would set a
 * row's version back, and a unit that loaded the row before would overwrite it unseen).
 */
function checkUpsert(table: TableModel, columns: readonly string[], spec: UpsertSpec): void {
  if (spec.conflict.length === 0) throw errors.upsertWithoutConflict(table.key)
  for (const name of spec.conflict) {
    columnOf(table, name)
    if (!columns.includes(name)) throw errors.upsertColumnMissing(table.key, name)
  }
  for (const name of spec.update) {
    columnOf(table, name)
    if (!columns.includes(name)) throw errors.upsertColumnMissing(table.key, name, 'update')
  }
  for (const name of spec.update) {
    if (spec.conflict.includes(name) || table.primaryKey.includes(name))
      throw errors.upsertUpdatesKey(table.key, name)
    if (name === table.versionColumn) throw errors.upsertUpdatesVersion(table.key, name)
  }
}

/**
 * An upsert's conflict columns have values (a key pipeflush draws from a sequence gets one at the
 * flush): its row is found by them. A row leaving one out is `INVALID_VALUE` naming it.
 */
function checkConflictValues(table: TableModel, input: InsertInput, spec: UpsertSpec): void {
  for (const name of spec.conflict) {
    if (input.row[name] !== undefined) continue
    if (keyFills(table).sequence.some((c) => c.name === name)) continue
    throw errors.upsertColumnMissing(table.key, name)
  }
}

/** A stored row's key may name key columns only. */
function checkKeyColumns(table: TableModel, key: RowValues, rowKey: RowKey): void {
  for (const name of Object.keys(key)) {
    columnOf(table, name)
    if (!table.primaryKey.includes(name))
      throw errors.invalidChange(table.key, `"${name}" is not a primary key column.`, {
        column: name,
        keys: [rowKey.key],
      })
  }
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function sameUpsert(a: UpsertSpec | undefined, b: UpsertSpec | undefined): boolean {
  if (a === b) return true
  if (a === undefined || b === undefined) return false
  return upsertId({ upsert: a }) === upsertId({ upsert: b })
}

/** The column each parameter of a statement writes or matches, in the SQL's order. */
function paramColumns(kind: StatementKind, table: TableModel, columns: readonly string[]): readonly string[] {
  if (kind === 'insert') return columns // never written: the columns themselves
  const out = table.primaryKey.concat(columns)
  if (table.versionColumn !== null) out.push('')
  return out
}

/** Rows from which the first draft's arrays are sized ahead (see {@link DraftGroups}). */
const SIZED_AHEAD = 1_000

/**
 * Rows grouped into drafts by (table, column set, upsert spec), without building a string per row.
 *
 * In a large flush the first draft's arrays (rows, keys, key texts) are sized ahead for the rows left
 * (a bulk insert is one draft) and cut to their length at the end: grown row by row, three arrays of
 * 100,000 rows left twice their size in garbage.
 */
class DraftGroups {
  /** Per table, its drafts (few: one per column set and upsert spec). */
  readonly #groups = new Map<TableModel, StatementDraft[]>()
  readonly #kind: StatementKind
  /** The draft whose arrays were sized ahead, and how many rows it holds. */
  #sized: StatementDraft | undefined
  #sizedRows = 0
  /** Whether a draft may still be sized ahead (only the first one made is). */
  #first = true

  constructor(kind: StatementKind) {
    this.#kind = kind
  }

  /**
   * The draft of (table, columns, upsert): its `columns` may be the given array. `rowsLeft`: how many
   * rows are still to be grouped, counting this one.
   */
  draftOf(table: TableModel, columns: readonly string[], upsert?: UpsertSpec, rowsLeft = 0): StatementDraft {
    const drafts = this.#groups.get(table)
    if (drafts !== undefined) {
      for (let i = 0; i < drafts.length; i++) {
        const draft = drafts[i]!
        if (sameColumns(draft.columns, columns) && sameUpsert(draft.upsert, upsert)) return draft
      }
    }
    const ahead = this.#first && rowsLeft >= SIZED_AHEAD
    this.#first = false
    const draft: StatementDraft = {
      kind: this.#kind,
      table,
      columns,
      fixup: false,
      upsert,
      rows: ahead ? new Array(rowsLeft) : [],
      keys: ahead ? new Array(rowsLeft) : [],
      keyIds: ahead ? new Array(rowsLeft) : [],
      params: [],
      paramColumns: paramColumns(this.#kind, table, columns),
      slotted: [],
      values: NO_VALUES,
    }
    if (ahead) this.#sized = draft
    // A table's first draft makes its list of one (a push grew an empty list to 17 slots).
    if (drafts === undefined) this.#groups.set(table, [draft])
    else drafts.push(draft)
    return draft
  }

  /** Adds a row to `draft`. */
  add(draft: StatementDraft, input: InsertInput | StoredInput, key: RowKey, source?: number): void {
    const sized = draft === this.#sized
    const at = sized ? this.#sizedRows++ : draft.rows.length
    if (source !== undefined) {
      draft.sources ??= new Array(at).fill(-1)
      draft.sources[at] = source
    } else if (draft.sources !== undefined) draft.sources.push(-1)
    if (sized) {
      draft.rows[at] = input
      draft.keys[at] = key.key
      draft.keyIds[at] = key.id
      return
    }
    if (at === 0) {
      // Arrays of the first row's size: most drafts hold one row, where a push grew each to 17 slots.
      draft.rows = [input]
      draft.keys = [key.key]
      draft.keyIds = [key.id]
      return
    }
    draft.rows.push(input)
    draft.keys.push(key.key)
    draft.keyIds.push(key.id)
  }

  /** The drafts in statement order, each holding its rows only (a draft sized ahead is cut). */
  sorted(): StatementDraft[] {
    const sized = this.#sized
    if (sized !== undefined) {
      sized.rows.length = this.#sizedRows
      sized.keys.length = this.#sizedRows
      sized.keyIds.length = this.#sizedRows
    }
    const out: StatementDraft[] = []
    for (const drafts of this.#groups.values()) for (let i = 0; i < drafts.length; i++) out.push(drafts[i]!)
    // Often in order already (tables met in their order): then not sorted, no work array made.
    return out.length > 1 && !inStatementOrder(out) ? out.sort(compareDrafts) : out
  }
}

/** Whether `drafts` are in statement order (as sorting them by `compareDrafts` would leave them). */
function inStatementOrder(drafts: readonly StatementDraft[]): boolean {
  for (let i = 1; i < drafts.length; i++) if (compareDrafts(drafts[i - 1]!, drafts[i]!) > 0) return false
  return true
}

/**
 * Per table, the own properties of the entity row that last started a run, and the columns they
 * write (frozen: later flushes' drafts share them): a later flush's first row of the table with the
 * same properties writes the same columns, found without `insertColumns`.
 */
const lastShapes = perTable((): { names: readonly string[] | undefined; columns: readonly string[] } => ({
  names: undefined,
  columns: [],
}))

/** The previous row's shape: a row of the same table and own properties writes the same columns. */
interface Run {
  readonly table: TableModel
  readonly names: readonly string[]
  readonly columns: readonly string[]
  readonly draft: StatementDraft
}

/**
 * Groups new rows into insert drafts by (table, written columns, upsert spec), checking each row's
 * table, columns, key and upsert spec in order. The first error of the rows in order is thrown: a value
 * of an earlier row that does not encode comes before a later row's other error.
 *
 * One statement per group: its SQL text is the same whatever the number of rows.
 */
export function groupInserts(schema: SchemaModel, inputs: readonly InsertInput[]): StatementDraft[] {
  if (inputs.length === 0) return []
  const groups = new DraftGroups('insert')
  // Rows of one shape come in runs (a large flush is one table, one column set): the previous row's
  // columns are reused when this row has the same own properties, and its draft with them.
  let run: Run | undefined
  let i = 0
  let encoded = 0
  try {
    for (; i < inputs.length; i++) {
      const input = inputs[i]!
      encoded = i
      const table = tableOf(schema, input.table)
      const same =
        run !== undefined &&
        run.table === table &&
        input.upsert === undefined &&
        sameShape(input.row, run.names)
      // An entity row shaped as the last run's of its table, in this flush or an earlier one, writes its columns.
      const last =
        same || input.upsert !== undefined || input.owner === undefined ? undefined : lastShapes(table)
      const known = last?.names !== undefined && sameShape(input.row, last.names) ? last : undefined
      const columns = same ? run!.columns : known !== undefined ? known.columns : insertColumns(table, input)
      const key = rowKeyOf(table, input, insertCell, true)
      if (input.upsert !== undefined) {
        // A conflict column left out is named as such, not as a value that is missing.
        checkConflictValues(table, input, input.upsert)
        encoded = i + 1 // its values are checked before its upsert spec
        checkUpsert(table, columns, input.upsert)
      }
      // A row whose key the server fills is found again by its place among the inserts.
      const source = key.serverFilled && input.upsert === undefined ? i : undefined
      const draft = same ? run!.draft : groups.draftOf(table, columns, input.upsert, inputs.length - i)
      groups.add(draft, input, key, source)
      if (!same)
        run = input.upsert === undefined ? runOf(table, input, columns, draft, known?.names) : undefined
    }
  } catch (e) {
    firstBadValue(schema, inputs, encoded)
    throw e
  }
  const drafts = groups.sorted()
  // One draft of every row in order (a bulk insert): it holds the inputs, not a copy of them.
  const only = drafts.length === 1 ? drafts[0]! : undefined
  if (only !== undefined && only.rows.length === inputs.length && sameItems(only.rows, inputs))
    only.rows = inputs as InsertInput[]
  return drafts
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * The run a row starts, or undefined when a later row's columns cannot be told from its properties.
 * `names`: the row's own properties when known (its shape found in {@link lastShapes}); else they are
 * read, and kept there with the columns for later flushes.
 */
function runOf(
  table: TableModel,
  input: InsertInput,
  columns: readonly string[],
  draft: StatementDraft,
  names?: readonly string[],
): Run | undefined {
  if (input.owner === undefined) return { table, names: columns, columns, draft }
  // An entity's null key the server fills is left out: whether it is null decides the columns.
  if (keyFills(table).server.length > 0) return undefined
  if (names === undefined) {
    const last = lastShapes(table)
    last.names = Object.keys(input.row)
    last.columns = Object.freeze(columns)
    return { table, names: last.names, columns, draft }
  }
  return { table, names, columns, draft }
}

/** Reads a stored row's key column. */
function storedKeyCell(input: StoredInput, column: ColumnModel): unknown {
  return input.key[column.name]
}

/**
 * Groups stored rows into update drafts by (table, set columns), or delete drafts by table (`set`
 * empty), checking each row's table, key and columns in order (a value that does not encode, of an
 * earlier row, first). Updates setting nothing are skipped.
 *
 * As {@link groupInserts}: one statement per group, whatever the number of rows.
 */
export function groupStored(
  schema: SchemaModel,
  inputs: readonly StoredInput[],
  kind: 'update' | 'delete',
): StatementDraft[] {
  if (inputs.length === 0) return [] // the usual flush has no updates or no deletes: no groups made
  const groups = new DraftGroups(kind)
  let i = 0
  try {
    for (; i < inputs.length; i++) {
      const input = inputs[i]!
      const table = tableOf(schema, input.table)
      if (kind === 'update' && input.set.length === 0) continue
      const key = rowKeyOf(table, input, storedKeyCell)
      checkKeyColumns(table, input.key, key)
      const columns = kind === 'update' ? setColumns(table, input.set) : NO_COLUMNS
      for (const name of columns) {
        if (table.primaryKey.includes(name))
          throw errors.invalidChange(table.key, `primary key column "${name}" cannot be updated.`, {
            column: name,
            keys: [key.key],
          })
        if (name === table.versionColumn)
          throw errors.invalidChange(
            table.key,
            `the version column "${name}" is incremented by pipeflush, not set.`,
            { column: name, keys: [key.key] },
          )
      }
      groups.add(groups.draftOf(table, columns, undefined, inputs.length - i), input, key)
    }
  } catch (e) {
    firstBadValue(schema, inputs, i, kind)
    throw e
  }
  return groups.sorted()
}

const NO_COLUMNS: readonly string[] = []
