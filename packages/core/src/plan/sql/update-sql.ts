import type { TableModel } from '../../model/model.ts'
import { columnSql } from '../../schema/column-sql.ts'
import { castText } from '../../values/index.ts'
import { type LookupSql, lookupNames, withLookups } from './lookup-sql.ts'
import { returnedList } from './returning-sql.ts'
import { rowCheckSql, sentKeyReturning } from './row-check-sql.ts'
import { expectedVersionName, keyMatchSql, type RowsForm, sourceTexts, unnestSql } from './sql-text.ts'

/** Whether an update statement matches and increments the version column. Fix-ups do neither. */
export function updateIsVersioned(table: TableModel, fixup: boolean): boolean {
  return table.versionColumn !== null && !fixup
}

/**
 * Unnest columns of an update, i.e. the order of its parameters: the primary key, the set columns, then
 * the expected version (null to skip the check for that row) when versioned.
 */
export function updateUnnestColumns(
  table: TableModel,
  setColumns: readonly string[],
  fixup: boolean,
): string[] {
  const names = [...table.primaryKey, ...setColumns]
  if (updateIsVersioned(table, fixup)) names.push(expectedVersionName(table.columns))
  return names
}

/**
 * The update of `setColumns` (in table order) of rows matched by primary key, checking the row count on
 * the server (see {@link rowCheckSql}). On a versioned table, rows match only with their expected
 * version (when given) and the version is incremented. A fix-up (setting a foreign key inserted as NULL to
 * break a cycle) neither checks nor increments the version: the row was inserted by the same flush.
 * Form `rows` reads the rows from unnested `text[]` parameters; form `row`, a single row, from `text`
 * parameters (`where t."id" = $1::text::int8`), in the same order.
 *
 * With `returning` (the key, then generated columns), the updated rows come back too, each carrying the
 * row count, as `select w."id"::text as r0, ..., c.* from (<row check>) as c left join w on true`: the
 * check still runs once (its one row is kept when no row was written) and fails the statement first.
 * `lookups`: set columns a row may take by a lookup on an upserted table (see `insertSql`).
 */
export function updateSql(
  table: TableModel,
  setColumns: readonly string[],
  fixup: boolean,
  returning: readonly string[] = [],
  form: RowsForm = 'rows',
  lookups: readonly LookupSql[] = [],
): string {
  const own = updateUnnestColumns(table, setColumns, fixup)
  const names = lookups.length === 0 ? own : [...own, ...lookupNames(table, lookups)]
  const texts = sourceTexts(names, form)
  const keyColumns = table.primaryKey.map((name) => table.columnsByName.get(name)!)
  let values = setColumns.map((name, i) =>
    castText(texts[keyColumns.length + i]!, table.columnsByName.get(name)!),
  )
  if (lookups.length > 0) values = withLookups(table, values, setColumns, lookups, texts.slice(own.length))
  const sets = setColumns.map((name, i) => `${columnSql(table, name)} = ${values[i]}`)
  let where = keyMatchSql('t', texts, keyColumns)
  if (updateIsVersioned(table, fixup)) {
    const version = table.columnsByName.get(table.versionColumn!)!
    const quoted = columnSql(table, version.name)
    const expected = texts[own.length - 1]!
    sets.push(`${quoted} = t.${quoted} + 1`)
    where += ` and (${expected} is null or t.${quoted} = ${castText(expected, version)})`
  }
  const written = returning.map((name) => `t.${columnSql(table, name)}`)
  if (form === 'rows') written.push(sentKeyReturning(table))
  else if (written.length === 0) written.push('1')
  const from = form === 'rows' ? ` from ${unnestSql(names, 'd')}` : ''
  const head =
    `with w as (update ${table.sqlName} as t set ${sets.join(', ')}${from} ` +
    `where ${where} returning ${written.join(', ')}) `
  const check = rowCheckSql(table, form)
  if (returning.length === 0) return head + check
  return `${head}select ${returnedList(table, returning, 'w')}, c.* from (${check}) as c left join w on true`
}
