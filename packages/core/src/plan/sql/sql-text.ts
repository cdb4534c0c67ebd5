import type { ColumnModel } from '../../model/model.ts'
import { dbNameOf } from '../../schema/column-sql.ts'
import { quoteIdentifier } from '../../values/identifier.ts'
import { castText, comparedColumn } from '../../values/index.ts'

/**
 * How a statement takes its rows: `'rows'`, one `text[]` parameter per column, unnested as `d` (any
 * number of rows, one text per shape whatever their count); `'row'`, exactly one row, one `text`
 * parameter per column, which the server plans like a statement written by hand: no unnest, no join,
 * in about half the time (see `bench/tools/statement-server-time.ts`).
 */
export type RowsForm = 'rows' | 'row'

/** `unnest($1::text[], $2::text[]) as d("a", "b")` for the given unnest column names. */
export function unnestSql(names: readonly string[], alias: string): string {
  const params = names.map((_, i) => `$${i + 1}::text[]`).join(', ')
  return `unnest(${params}) as ${alias}(${names.map(quoteIdentifier).join(', ')})`
}

/**
 * The text expression of each of `names`, the statement's parameter columns in order: the unnest
 * element `d."a"` (form `rows`), or the parameter itself, `$1::text` (form `row`).
 *
 * One builder writes both forms of each statement: only where its texts come from differs.
 */
export function sourceTexts(names: readonly string[], form: RowsForm): string[] {
  return form === 'row' ? names.map((_, i) => `$${i + 1}::text`) : names.map((n) => `d.${quoteIdentifier(n)}`)
}

/**
 * `t."a" = d."a"::int8 and t."b" = d."b"::text`: matches the target row on its key, `texts` being the
 * key columns' text expressions (see {@link sourceTexts}).
 */
export function keyMatchSql(
  target: string,
  texts: readonly string[],
  columns: readonly ColumnModel[],
): string {
  return columns
    .map(
      (column, i) =>
        `${comparedColumn(`${target}.${quoteIdentifier(dbNameOf(column))}`, column)} = ${castText(texts[i]!, column)}`,
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
