import { v7 as uuidv7 } from 'uuid'
import { errors, PipeflushError } from '../errors.ts'
import type { UpsertSpec } from '../plan/types.ts'
import { columnOf, writableColumn } from '../schema/checks.ts'
import type { TableModel } from '../schema/model.ts'
import { emptyRow } from '../track/row.ts'

/**
 * The row of a new entity of `table`: a copy of `values` whose every column exists and may be
 * written by an insert, a uuid v7 for a single uuid key left out, 1 for the version column left out.
 * Sequence and identity keys are left out: they get their id at flush.
 *
 * @example
 * newRow(book, { title: 'Notes' }) // { title: 'Notes', version: 1 }
 */
export function newRow(
  table: TableModel,
  values: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const row = writableRow(table, values)
  const [pk] = table.primaryKey
  if (table.primaryKey.length === 1 && pk !== undefined && (row[pk] === undefined || row[pk] === null)) {
    if (table.columnsByName.get(pk)?.type === 'uuid') row[pk] = uuidv7()
  }
  const version = table.versionColumn
  if (version && (row[version] === undefined || row[version] === null)) row[version] = 1
  return row
}

/**
 * An upsert's row and spec: the `conflict` columns (required), the `update` columns (default: every
 * supplied column but the conflict, key and version columns), 1 for a version left out.
 *
 * @example
 * upsertOf(reading, { device: 'd1', value: 2 }, { conflict: ['device'] }) // spec.update ['value']
 */
export function upsertOf(
  table: TableModel,
  values: Readonly<Record<string, unknown>>,
  options: { readonly conflict: readonly string[]; readonly update?: readonly string[] },
): { row: Record<string, unknown>; spec: UpsertSpec } {
  const row = writableRow(table, values)
  if (!Array.isArray(options?.conflict) || options.conflict.length === 0) {
    throw errors.invalidConfig(`upsert(${table.key}): name the conflict columns.`, { table: table.key })
  }
  for (const name of [...options.conflict, ...(options.update ?? [])]) columnOf(table, name)
  const update =
    options.update ??
    Object.keys(row).filter(
      (c) => !options.conflict.includes(c) && !table.primaryKey.includes(c) && c !== table.versionColumn,
    )
  if (table.versionColumn && row[table.versionColumn] === undefined) row[table.versionColumn] = 1
  return { row, spec: { conflict: [...options.conflict], update: [...update] } }
}

/**
 * The managed row of a row read elsewhere: every column of `table`, or `INVALID_VALUE` naming the
 * one it lacks.
 */
export function mergedRow(
  table: TableModel,
  row: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const values = emptyRow()
  for (const c of table.columns) {
    if (!(c.name in row)) {
      throw new PipeflushError('INVALID_VALUE', `merge(${table.key}): the row lacks column "${c.name}".`, {
        table: table.key,
        column: c.name,
      })
    }
    values[c.name] = row[c.name]
  }
  return values
}

/** A copy of `values` whose every column exists and may be written by an insert. */
function writableRow(table: TableModel, values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  if (typeof values !== 'object' || values === null) {
    throw new PipeflushError(
      'INVALID_VALUE',
      `${table.key}: the values must be an object, not ${String(values)}.`,
      {
        table: table.key,
      },
    )
  }
  const row = emptyRow()
  for (const name of Object.keys(values)) {
    writableColumn(table, name, 'insert')
    row[name] = values[name]
  }
  return row
}
