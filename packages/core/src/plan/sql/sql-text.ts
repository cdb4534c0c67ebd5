import type { ColumnModel } from '../../schema/model.ts'
import { quoteIdentifier } from '../../values/identifier.ts'
import { castText, comparedColumn } from '../../values/index.ts'

/** `unnest($1::text[], $2::text[]) as d("a", "b")` for the given unnest column names. */
export function unnestSql(names: readonly string[], alias: string): string {
  const params = names.map((_, i) => `$${i + 1}::text[]`).join(', ')
  return `unnest(${params}) as ${alias}(${names.map(quoteIdentifier).join(', ')})`
}

/**
 * `d."id"::int8`: an unnest element converted to the column's type (see `castText`: a cast, or the
 * type's input function where the column's typmod changes how the text reads).
 */
export function castElement(alias: string, name: string, column: ColumnModel): string {
  return castText(`${alias}.${quoteIdentifier(name)}`, column)
}

/** `t."a" = d."a"::int8 and t."b" = d."b"::text`: matches the target row on its key. */
export function keyMatchSql(target: string, source: string, columns: readonly ColumnModel[]): string {
  return columns
    .map(
      (column) =>
        `${comparedColumn(`${target}.${quoteIdentifier(column.name)}`, column)} = ${castElement(source, column.name, column)}`,
    )
    .join(' and ')
}

/**
 * The unnest name of the expected-version element: `$v`, or `$v1`, `$v2`... if the table has a column by
 * that name. Constant per table, so the statement text stays constant.
 */
export function expectedVersionName(columns: readonly ColumnModel[]): string {
  const names = new Set(columns.map((c) => c.name))
  let name = '$v'
  for (let i = 1; names.has(name); i++) name = `$v${i}`
  return name
}
