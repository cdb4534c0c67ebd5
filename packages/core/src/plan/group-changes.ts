import { PipeflushError } from '../errors.ts'
import { columnOf, writableColumn, writableTable } from '../schema/checks.ts'
import type { SchemaModel, TableModel } from '../schema/model.ts'
import { encodeValue, normalizeKeyValue } from '../values/index.ts'
import { compareDrafts, type RowDraft, type StatementDraft, upsertId } from './drafts.ts'
import type { ChangeSet, RowValues, StatementKind, UpsertSpec } from './types.ts'

/** The change set validated, encoded and grouped into statements, each list in statement order. */
export interface GroupedChanges {
  readonly inserts: StatementDraft[]
  readonly updates: StatementDraft[]
  readonly deletes: StatementDraft[]
}

interface RowKey {
  readonly key: unknown
  /** The key by column, for error messages. */
  readonly at: { readonly table: string; readonly key: Readonly<Record<string, unknown>> }
  readonly keyValues: readonly unknown[]
  /** Canonical form, to find the same row twice. */
  readonly id: string
}

/** Reads the primary key out of `source` (an insert's values or an update's or delete's key). */
function rowKeyOf(table: TableModel, source: RowValues): RowKey {
  const keyValues = table.primaryKey.map((name) => {
    const value = source[name]
    if (value === undefined || value === null) {
      throw new PipeflushError(
        'INVALID_VALUE',
        `A row of "${table.key}" lacks its primary key column "${name}".`,
        {
          table: table.key,
          column: name,
        },
      )
    }
    return value
  })
  const at = {
    table: table.key,
    key: Object.fromEntries(table.primaryKey.map((name, i) => [name, keyValues[i]])),
  }
  const id = JSON.stringify(
    keyValues.map((value, i) => normalizeKeyValue(value, columnOf(table, table.primaryKey[i]!), at)),
  )
  return { key: keyValues.length === 1 ? keyValues[0] : keyValues, at, keyValues, id }
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
  for (const name of Object.keys(values)) writableColumn(table, name, kind === 'update' ? 'update' : 'insert')
  return table.columns.filter((c) => Object.hasOwn(values, c.name)).map((c) => c.name)
}

function encodeRow(
  table: TableModel,
  columns: readonly string[],
  values: RowValues,
  key: RowKey,
): Map<string, string | null> {
  const texts = new Map<string, string | null>()
  for (const name of columns) texts.set(name, encodeValue(values[name], columnOf(table, name), key.at))
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

class DraftGroups {
  readonly #groups = new Map<string, StatementDraft>()
  readonly #kind: StatementKind

  constructor(kind: StatementKind) {
    this.#kind = kind
  }

  add(table: TableModel, columns: readonly string[], row: RowDraft, upsert?: UpsertSpec): void {
    const id = JSON.stringify([table.key, columns, upsertId({ upsert })])
    let draft = this.#groups.get(id)
    if (draft === undefined) {
      draft = { kind: this.#kind, table, columns, fixup: false, rows: [], upsert }
      this.#groups.set(id, draft)
    }
    draft.rows.push(row)
  }

  sorted(): StatementDraft[] {
    return [...this.#groups.values()].sort(compareDrafts)
  }
}

/** Remembers which rows each kind touches, to reject the same row twice. */
class SeenRows {
  /** Per table, the kind that first touched each key (a map per table: no string built per row). */
  readonly #seen = new Map<string, Map<string, StatementKind>>()

  claim(table: TableModel, key: RowKey, kind: StatementKind): void {
    let rows = this.#seen.get(table.key)
    if (rows === undefined) {
      rows = new Map()
      this.#seen.set(table.key, rows)
    }
    const previous = rows.get(key.id)
    if (previous === undefined) {
      rows.set(key.id, kind)
      return
    }
    if (previous === 'insert' && kind === 'insert') {
      throw new PipeflushError('DUPLICATE_KEY', `Two new rows of "${table.key}" share the key ${key.id}.`, {
        table: table.key,
        keys: [key.key],
      })
    }
    // An insert and a delete of one key is the unit of work's business (a replaced row).
    if (previous === 'insert' && kind === 'delete') return
    throw stateError(
      table,
      key,
      `the row ${key.id} is changed twice (${previous}, then ${kind}) in one change set.`,
    )
  }
}

/**
 * Validates a change set and groups it into statement drafts: inserts by (table, supplied columns),
 * updates by (table, set columns), deletes by table. Every value is encoded here, so an invalid value
 * fails the plan before anything is sent. Updates with an empty `set` are skipped.
 */
export function groupChanges(schema: SchemaModel, changes: ChangeSet): GroupedChanges {
  const seen = new SeenRows()
  const inserts = new DraftGroups('insert')
  for (const change of changes.inserts) {
    const table = writableTable(schema, change.table)
    const columns = writtenColumns(table, change.values, 'insert')
    const key = rowKeyOf(table, change.values)
    seen.claim(table, key, 'insert')
    const texts = encodeRow(table, columns, change.values, key)
    const keyTexts = table.primaryKey.map((name) => texts.get(name) ?? '')
    if (change.upsert) checkUpsert(table, columns, change.upsert)
    inserts.add(
      table,
      columns,
      { ...key, keyTexts, values: change.values, texts, versionText: null },
      change.upsert,
    )
  }
  const updates = new DraftGroups('update')
  for (const change of changes.updates) {
    const table = writableTable(schema, change.table)
    if (Object.keys(change.set).length === 0) continue
    const key = rowKeyOf(table, change.key)
    checkKeyColumns(table, change.key, key)
    seen.claim(table, key, 'update')
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
    updates.add(table, columns, {
      ...key,
      keyTexts: encodeKey(table, key),
      values: change.set,
      texts: encodeRow(table, columns, change.set, key),
      versionText: encodeVersion(table, change.expectedVersion, key),
    })
  }
  const deletes = new DraftGroups('delete')
  for (const change of changes.deletes) {
    const table = writableTable(schema, change.table)
    const key = rowKeyOf(table, change.key)
    checkKeyColumns(table, change.key, key)
    seen.claim(table, key, 'delete')
    deletes.add(table, [], {
      ...key,
      keyTexts: encodeKey(table, key),
      values: {},
      texts: new Map(),
      versionText: encodeVersion(table, change.expectedVersion, key),
    })
  }
  return { inserts: inserts.sorted(), updates: updates.sorted(), deletes: deletes.sorted() }
}
