import { errors, PipeflushError } from '../errors.ts'
import { keyFillOf } from '../ids/key-fill.ts'
import { columnOf, writableColumn, writableTable } from '../schema/checks.ts'
import type { SchemaModel, TableModel } from '../schema/model.ts'
import { encodeValue, normalizeKeyValue, type ValueLocation } from '../values/index.ts'
import { checkDistinctRows } from './distinct-rows.ts'
import { compareDrafts, type RowDraft, type StatementDraft, upsertId } from './drafts.ts'
import type { ChangeSet, RowValues, StatementKind, UpsertSpec } from './types.ts'

/** The change set validated, encoded and grouped into statements, each list in statement order. */
export interface GroupedChanges {
  readonly inserts: StatementDraft[]
  readonly updates: StatementDraft[]
  readonly deletes: StatementDraft[]
}

interface RowKey {
  /** The key (a value, or an array for a composite key); null while the server is to fill part of it. */
  readonly key: unknown
  /** The key by column, for error messages. */
  readonly at: RowLocation
  readonly keyValues: readonly unknown[]
  /** The key values' canonical forms (`normalizeKeyValue`), in key order ('' for a part the server fills). */
  readonly keyIds: readonly string[]
  /** Part of the key is left to the server (its DEFAULT), read back once the row is inserted. */
  readonly serverFilled: boolean
}

/**
 * Where a row's values belong, for error messages: `key` (the primary key by column) is built only
 * when a message needs it.
 */
class RowLocation implements ValueLocation {
  readonly table: string
  readonly #names: readonly string[]
  readonly #values: readonly unknown[]

  constructor(table: TableModel, values: readonly unknown[]) {
    this.table = table.key
    this.#names = table.primaryKey
    this.#values = values
  }

  get key(): Readonly<Record<string, unknown>> {
    return Object.fromEntries(this.#names.map((name, i) => [name, this.#values[i]]))
  }
}

/**
 * Reads the primary key out of `source` (an insert's values or an update's or delete's key). A new
 * row (`insert`) may leave out a key column the server fills (see `keyFillOf`); any other missing key
 * column is `INVALID_VALUE`, or `UNSUPPORTED_TABLE` when its sequence may not be used by the role.
 */
function rowKeyOf(table: TableModel, source: RowValues, insert = false): RowKey {
  const names = table.primaryKey
  const keyValues: unknown[] = new Array(names.length)
  let serverFilled = false
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!
    const value = source[name]
    if (value === undefined || value === null) {
      const fill = insert ? keyFillOf(table, columnOf(table, name)) : 'given'
      if (fill === 'server') {
        serverFilled = true
        continue
      }
      if (fill === 'denied') throw errors.sequenceDenied(table.key, name, columnOf(table, name).sequence!)
      throw new PipeflushError(
        'INVALID_VALUE',
        `A row of "${table.key}" lacks its primary key column "${name}".`,
        {
          table: table.key,
          column: name,
        },
      )
    }
    keyValues[i] = value
  }
  const at = new RowLocation(table, keyValues)
  const keyIds: string[] = new Array(names.length)
  for (let i = 0; i < names.length; i++) {
    const value = keyValues[i]
    keyIds[i] = value === undefined ? '' : normalizeKeyValue(value, columnOf(table, names[i]!), at)
  }
  const key = serverFilled ? null : keyValues.length === 1 ? keyValues[0] : keyValues
  return { key, at, keyValues, keyIds, serverFilled }
}

function stateError(table: TableModel, key: RowKey, message: string, column?: string): PipeflushError {
  return new PipeflushError('INVALID_STATE', `Table "${table.key}": ${message}`, {
    table: table.key,
    column,
    keys: [key.key],
  })
}

/** An upsert's conflict columns must be supplied by the row; update columns must be supplied and not keys. */
function checkUpsert(table: TableModel, columns: readonly string[], spec: UpsertSpec): void {
  if (spec.conflict.length === 0) {
    throw new PipeflushError('INVALID_CONFIG', `Upsert into "${table.key}": name the conflict columns.`, {
      table: table.key,
    })
  }
  for (const name of [...spec.conflict, ...spec.update]) {
    columnOf(table, name)
    if (!columns.includes(name)) {
      throw new PipeflushError(
        'INVALID_VALUE',
        `Upsert into "${table.key}": the row does not supply "${name}".`,
        { table: table.key, column: name },
      )
    }
  }
  for (const name of spec.update) {
    if (spec.conflict.includes(name) || table.primaryKey.includes(name)) {
      throw new PipeflushError(
        'INVALID_CONFIG',
        `Upsert into "${table.key}": "${name}" is a conflict or key column and cannot be updated.`,
        {
          table: table.key,
          column: name,
        },
      )
    }
  }
}

/** Columns of `values` in table order, each checked to exist and to be writable by `kind`. */
function writtenColumns(table: TableModel, values: RowValues, kind: StatementKind): string[] {
  const columns: string[] = []
  for (const column of table.columns) if (Object.hasOwn(values, column.name)) columns.push(column.name)
  const names = Object.keys(values)
  const check = kind === 'update' ? 'update' : 'insert'
  // Every own key is a column when the counts match; else the check names the unknown one.
  for (const name of names.length === columns.length ? columns : names) writableColumn(table, name, check)
  return columns
}

/**
 * Whether `values` holds exactly the columns `columns` (own properties, in any order): then it writes
 * what a row that gave `columns` writes. Allocates nothing.
 */
function sameShape(values: RowValues, columns: readonly string[]): boolean {
  let count = 0
  for (const name in values) {
    if (!Object.hasOwn(values, name)) return false
    count++
  }
  if (count !== columns.length) return false
  for (let i = 0; i < columns.length; i++) if (!Object.hasOwn(values, columns[i]!)) return false
  return true
}

/** The key columns' texts out of a row's `texts` (`at`: each key column's index in them, or -1). */
function keyTextsOf(texts: readonly (string | null)[], at: readonly number[]): string[] {
  const out: string[] = new Array(at.length)
  for (let i = 0; i < at.length; i++) out[i] = texts[at[i]!] ?? ''
  return out
}

/** The texts of `values` in `columns`, in that order. */
function encodeRow(
  table: TableModel,
  columns: readonly string[],
  values: RowValues,
  key: RowKey,
): (string | null)[] {
  const texts: (string | null)[] = new Array(columns.length)
  for (let i = 0; i < columns.length; i++) {
    const name = columns[i]!
    texts[i] = encodeValue(values[name], columnOf(table, name), key.at)
  }
  return texts
}

function encodeKey(table: TableModel, key: RowKey): string[] {
  return table.primaryKey.map((name, i) => {
    return encodeValue(key.keyValues[i], columnOf(table, name), key.at) ?? ''
  })
}

function checkKeyColumns(table: TableModel, key: RowValues, rowKey: RowKey): void {
  for (const name of Object.keys(key)) {
    columnOf(table, name)
    if (!table.primaryKey.includes(name))
      throw stateError(table, rowKey, `"${name}" is not a primary key column.`, name)
  }
}

function encodeVersion(table: TableModel, expectedVersion: number | undefined, key: RowKey): string | null {
  if (expectedVersion === undefined) return null
  if (table.versionColumn === null) {
    throw stateError(table, key, 'an expected version was given but the table has no version column.')
  }
  return encodeValue(expectedVersion, columnOf(table, table.versionColumn), key.at)
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** Rows grouped into drafts by (table, column set, upsert spec), without building a string per row. */
class DraftGroups {
  /** Per table, its drafts (few: one per column set and upsert spec). */
  readonly #groups = new Map<TableModel, StatementDraft[]>()
  readonly #kind: StatementKind

  constructor(kind: StatementKind) {
    this.#kind = kind
  }

  /** The draft of (table, columns, upsert): rows go in its `rows`; its `columns` may be the given array. */
  draftOf(table: TableModel, columns: readonly string[], upsert?: UpsertSpec): StatementDraft {
    let drafts = this.#groups.get(table)
    if (drafts === undefined) {
      drafts = []
      this.#groups.set(table, drafts)
    }
    for (const draft of drafts) {
      if (sameColumns(draft.columns, columns) && sameUpsert(draft.upsert, upsert)) return draft
    }
    const draft: StatementDraft = { kind: this.#kind, table, columns, fixup: false, rows: [], upsert }
    drafts.push(draft)
    return draft
  }

  sorted(): StatementDraft[] {
    return [...this.#groups.values()].flat().sort(compareDrafts)
  }
}

function sameUpsert(a: UpsertSpec | undefined, b: UpsertSpec | undefined): boolean {
  if (a === b) return true
  if (a === undefined || b === undefined) return false
  return upsertId({ upsert: a }) === upsertId({ upsert: b })
}

/**
 * Validates a change set and groups it into statement drafts: inserts by (table, supplied columns),
 * updates by (table, set columns), deletes by table. Every value is encoded here, so an invalid value
 * fails the plan before anything is sent; a row written twice fails too (see `checkDistinctRows`).
 * Updates with an empty `set` are skipped.
 */
export function groupChanges(schema: SchemaModel, changes: ChangeSet): GroupedChanges {
  const inserts = new DraftGroups('insert')
  // Rows of one shape come in runs (a large flush is one table, one column set): the previous row's
  // columns are reused when this row has the same ones, and its draft with them.
  let last:
    | { table: TableModel; columns: readonly string[]; draft: StatementDraft; keyAt: number[] }
    | undefined
  for (let i = 0; i < changes.inserts.length; i++) {
    const change = changes.inserts[i]!
    const table = writableTable(schema, change.table)
    const same =
      last !== undefined && last.table === table && !change.upsert && sameShape(change.values, last.columns)
    const columns = same ? last!.columns : writtenColumns(table, change.values, 'insert')
    const key = rowKeyOf(table, change.values, true)
    const texts = encodeRow(table, columns, change.values, key)
    if (change.upsert) checkUpsert(table, columns, change.upsert)
    // A row whose key the server fills is found again by its place among the change set's inserts.
    const source = key.serverFilled && !change.upsert ? i : undefined
    if (same) {
      last!.draft.rows.push(rowDraft(key, keyTextsOf(texts, last!.keyAt), change.values, texts, null, source))
      continue
    }
    const draft = inserts.draftOf(table, columns, change.upsert)
    const keyAt = table.primaryKey.map((name) => draft.columns.indexOf(name))
    last = change.upsert ? undefined : { table, columns, draft, keyAt }
    draft.rows.push(rowDraft(key, keyTextsOf(texts, keyAt), change.values, texts, null, source))
  }
  const updates = new DraftGroups('update')
  for (const change of changes.updates) {
    const table = writableTable(schema, change.table)
    if (Object.keys(change.set).length === 0) continue
    const key = rowKeyOf(table, change.key)
    checkKeyColumns(table, change.key, key)
    const columns = writtenColumns(table, change.set, 'update')
    for (const name of columns) {
      if (table.primaryKey.includes(name))
        throw stateError(table, key, `primary key column "${name}" cannot be updated.`, name)
      if (name === table.versionColumn) {
        throw stateError(
          table,
          key,
          `the version column "${name}" is incremented by pipeflush, not set.`,
          name,
        )
      }
    }
    const keyTexts = encodeKey(table, key)
    const texts = encodeRow(table, columns, change.set, key)
    const versionText = encodeVersion(table, change.expectedVersion, key)
    updates.draftOf(table, columns).rows.push(rowDraft(key, keyTexts, change.set, texts, versionText))
  }
  const deletes = new DraftGroups('delete')
  for (const change of changes.deletes) {
    const table = writableTable(schema, change.table)
    const key = rowKeyOf(table, change.key)
    checkKeyColumns(table, change.key, key)
    const keyTexts = encodeKey(table, key)
    const versionText = encodeVersion(table, change.expectedVersion, key)
    deletes.draftOf(table, NO_COLUMNS).rows.push(rowDraft(key, keyTexts, {}, [], versionText))
  }
  const grouped = { inserts: inserts.sorted(), updates: updates.sorted(), deletes: deletes.sorted() }
  checkDistinctRows([...grouped.inserts, ...grouped.updates, ...grouped.deletes])
  return grouped
}

const NO_COLUMNS: readonly string[] = []

function rowDraft(
  key: RowKey,
  keyTexts: readonly string[],
  values: RowValues,
  texts: (string | null)[],
  versionText: string | null,
  source?: number,
): RowDraft {
  const draft = {
    key: key.key,
    keyValues: key.keyValues,
    keyIds: key.keyIds,
    keyTexts,
    values,
    texts,
    versionText,
  }
  return source === undefined ? draft : { ...draft, source }
}
