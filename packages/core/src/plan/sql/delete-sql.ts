import type { TableModel } from '../../model/model.ts'
import { columnSql } from '../../schema/column-sql.ts'
import { castText } from '../../values/index.ts'
import { rowCheckSql, sentKeyReturning } from './row-check-sql.ts'
import { expectedVersionName, keyMatchSql, type RowsForm, sourceTexts, unnestSql } from './sql-text.ts'

/** Unnest columns of a delete, i.e. the order of its parameters: the primary key, then the expected version when versioned. */
export function deleteUnnestColumns(table: TableModel): string[] {
  const names = [...table.primaryKey]
  if (table.versionColumn !== null) names.push(expectedVersionName(table.columns))
  return names
}

/**
 * The delete of rows matched by primary key (and expected version, when the table is versioned and the
 * row gives one), checking the row count on the server (see {@link rowCheckSql}). One per table. Form
 * `rows` reads the keys from unnested `text[]` parameters; form `row`, a single row, from `text`
 * parameters (`where t."id" = $1::text::int8`).
 *
 * One text for any number of rows: a connection prepares it once.
 */
export function deleteSql(table: TableModel, form: RowsForm = 'rows'): string {
  const names = deleteUnnestColumns(table)
  const texts = sourceTexts(names, form)
  const keyColumns = table.primaryKey.map((name) => table.columnsByName.get(name)!)
  let where = keyMatchSql('t', texts, keyColumns)
  if (table.versionColumn !== null) {
    const version = table.columnsByName.get(table.versionColumn)!
    const expected = texts[texts.length - 1]!
    where += ` and (${expected} is null or t.${columnSql(table, version.name)} = ${castText(expected, version)})`
  }
  const using = form === 'rows' ? ` using ${unnestSql(names, 'd')}` : ''
  const written = form === 'rows' ? sentKeyReturning(table) : '1'
  return (
    `with w as (delete from ${table.sqlName} as t${using} ` +
    `where ${where} returning ${written}) ${rowCheckSql(table, form)}`
  )
}
