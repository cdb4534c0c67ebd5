import type { TableModel } from '../../model/model.ts'
import { columnSql } from '../../schema/column-sql.ts'
import { quoteIdentifier } from '../../values/identifier.ts'
import type { UpsertSpec } from '../types.ts'
import { insertSql, storedRowName } from './insert-sql.ts'
import { returnedList } from './returning-sql.ts'
import type { RowsForm } from './sql-text.ts'

/**
 * The `on conflict` clause of an upsert. One that returns its rows (`returning`) never does nothing:
 * `do nothing` returns no row for a conflicting one, so an upsert updating nothing sets its first
 * conflict column to the value the stored row has (the row's own, named by the table's name: the
 * value proposed, `excluded`'s, may be another text of an equal value, a citext's other case say).
 * That writes a new row version and fires update triggers, the cost of getting the existing row's
 * key without reading it first; it leaves a version column as it is (nothing changed). An upsert that
 * updates columns increments the version column of a table that has one.
 */
export function onConflictSql(spec: UpsertSpec, returning = false, table?: TableModel): string {
  const quoted = (name: string) => (table === undefined ? quoteIdentifier(name) : columnSql(table, name))
  const target = spec.conflict.map(quoted).join(', ')
  if (spec.update.length === 0 && returning) {
    const first = quoted(spec.conflict[0]!)
    const stored = table === undefined ? 'excluded' : storedRowName(table)
    return ` on conflict (${target}) do update set ${first} = ${stored}.${first}`
  }
  if (spec.update.length === 0) return ` on conflict (${target}) do nothing`
  let set = spec.update.map((c) => `${quoted(c)} = excluded.${quoted(c)}`).join(', ')
  // An update of a versioned row increments its version, as a flush's update does: a unit that
  // loaded the row before then fails OPTIMISTIC_LOCK instead of overwriting what the upsert wrote.
  const version = table?.versionColumn ?? null
  if (version !== null && !spec.update.includes(version)) {
    const v = quoted(version)
    set += `, ${v} = ${storedRowName(table!)}.${v} + 1`
  }
  return ` on conflict (${target}) do update set ${set}`
}

/**
 * An upsert of rows supplying `columns` that returns every column of each row as stored (aliased
 * `r0, r1...` in table order), whether inserted or updated: the flush makes its entity of it. The
 * returned rows are matched to the upserts by their conflict values.
 */
export function upsertReturningSql(
  table: TableModel,
  columns: readonly string[],
  spec: UpsertSpec,
  form: RowsForm,
): { readonly returning: readonly string[]; readonly sql: string } {
  const returning = table.columns.map((c) => c.name)
  const sql = `${insertSql(table, columns, [], form)}${onConflictSql(spec, true, table)} returning ${returnedList(table, returning)}`
  return { returning, sql }
}
