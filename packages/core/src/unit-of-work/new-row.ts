import { v7 as uuidv7 } from 'uuid'
import { isRecord, knownOptions, recordArgument, stringsArgument } from '../arguments.ts'
import { errors } from '../errors.ts'
import type { TableModel } from '../model/model.ts'
import type { UpsertSpec } from '../plan/types.ts'
import { columnOf, givenColumn } from '../schema/checks.ts'
import { keyFills } from '../schema/key-fill.ts'
import { emptyRowOf } from '../track/row.ts'
import { versionValue } from '../values/mapping.ts'

/**
 * The row of a new entity of `table`: a copy of `values` whose every column exists and may be
 * written by an insert, a uuid v7 for a uuid key left out (a single uuid key, or a uuid key column
 * with a default, whatever the default), 1 for the version column left out. Keys a sequence fills are
 * left out: they get their id at flush; so are keys the server fills (read back by the flush).
 *
 * A new row's mistakes are errors at `create`, at once, not at the flush.
 */
export function newRow(
  table: TableModel,
  values: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const row = writableRow(table, values)
  fillUuidKeys(table, row)
  const version = table.versionColumn
  if (version && (row[version] === undefined || row[version] === null))
    row[version] = versionValue(1, columnOf(table, version))
  return row
}

/**
 * An upsert's row and spec: the `conflict` columns (required), the `update` columns (default: every
 * supplied column but the conflict, key and version columns), 1 for a version left out, and a uuid v7
 * for a uuid key left out as {@link newRow} makes one: the key an inserted row gets (a stored row keeps
 * its own, which the flush reads back).
 *
 * As {@link newRow}: an upsert's mistakes are errors at `upsert`, not at the flush.
 */
export function upsertOf(
  table: TableModel,
  values: Readonly<Record<string, unknown>>,
  options: { readonly conflict: readonly string[]; readonly update?: readonly string[] | undefined },
): { row: Record<string, unknown>; spec: UpsertSpec } {
  const row = writableRow(table, values)
  const where = { table: table.key }
  const spec = recordArgument(options, `upsert(${table.key}): the options`, 'INVALID_CONFIG', where)
  knownOptions(spec, UPSERT_OPTIONS, `upsert(${table.key})`, 'INVALID_CONFIG', where)
  const conflict = stringsArgument(
    spec['conflict'],
    `upsert(${table.key}): conflict`,
    'INVALID_CONFIG',
    where,
  )
  if (conflict.length === 0) {
    throw errors.upsertConflictUnnamed(table.key)
  }
  const given =
    spec['update'] === undefined
      ? undefined
      : stringsArgument(spec['update'], `upsert(${table.key}): update`, 'INVALID_CONFIG', where)
  for (const name of [...conflict, ...(given ?? [])]) columnOf(table, name)
  for (const name of conflict)
    if (columnOf(table, name).generated) throw errors.upsertGeneratedConflict(table.key, name)
  const update =
    given ??
    Object.keys(row).filter(
      (c) => !conflict.includes(c) && !table.primaryKey.includes(c) && c !== table.versionColumn,
    )
  if (table.versionColumn && row[table.versionColumn] === undefined)
    row[table.versionColumn] = versionValue(1, columnOf(table, table.versionColumn))
  fillUuidKeys(table, row)
  return { row, spec: { conflict: [...conflict], update: [...update] } }
}

/** The options of `upsert`. */
const UPSERT_OPTIONS: readonly string[] = ['conflict', 'update']

/**
 * The managed row of a row read elsewhere: every column of `table`, or `INVALID_VALUE` naming the
 * one it lacks.
 */
export function mergedRow(
  table: TableModel,
  row: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const given = recordArgument(row, `merge(${table.key}): the row`, 'INVALID_VALUE', { table: table.key })
  const values = emptyRowOf(table, 'row')
  for (const c of table.columns) {
    if (!(c.name in given)) {
      throw errors.mergeColumnMissing(table.key, c.name)
    }
    values[c.name] = given[c.name]
  }
  return values
}

/** Gives each uuid key column `row` leaves out a uuid v7 (see `keyFills`). */
function fillUuidKeys(table: TableModel, row: Record<string, unknown>): void {
  for (const column of keyFills(table).uuid) {
    if (row[column.name] === undefined || row[column.name] === null) row[column.name] = uuidv7()
  }
}

/** A copy of `values` whose every column exists and may be written by an insert. */
function writableRow(table: TableModel, values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  // The message is built only for a bad argument, and own keys are walked without an array of
  // them: nothing is allocated per entity but its row (bulk loads create many).
  const given = isRecord(values)
    ? values
    : recordArgument(values, `${table.key}: the values`, 'INVALID_VALUE', { table: table.key })
  const row = emptyRowOf(table, 'row')
  for (const name in given) {
    if (!Object.hasOwn(given, name)) continue
    const value = given[name]
    givenColumn(table, name, value)
    row[name] = value
  }
  return row
}
