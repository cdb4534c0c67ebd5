import { PipeflushError } from '../errors.ts'
import type { ColumnModel, TableModel } from '../schema/model.ts'
import { quoteIdentifier } from '../values/identifier.ts'
import { castText, castTextList, comparedColumn, encodeValue } from '../values/index.ts'

/** A where clause: column = value, column = any(values) for arrays of values, `is null` for null. */
export type Where = Readonly<Record<string, unknown>>

/**
 * The select list of a table: every column as text, aliased `c0, c1...`, so results do not depend on
 * the client's type parsers or column-name transforms.
 */
export function selectList(table: TableModel, alias = 't'): string {
  return table.columns.map((c, i) => `${alias}.${quoteIdentifier(c.name)}::text as c${i}`).join(', ')
}

/**
 * `select ... from table where ...` with one text parameter per condition (`$n::text::type`, or
 * `= any($n::text[]::type[])` for a list; converted by `castText`/`castTextList`), constant text per
 * (table, where shape).
 *
 * @example
 * selectSql(book, { title: 'Draft', author_id: [1, 2] })
 * // { sql: 'select ... from "public"."book" as t where t."title" = $1::text::text and t."author_id" = any($2::text[]::int8[])', params: ['Draft', ['1', '2']] }
 */
export function selectSql(
  table: TableModel,
  where: Where,
): { sql: string; params: (string | (string | null)[])[] } {
  const conditions: string[] = []
  const params: (string | (string | null)[])[] = []
  for (const [name, value] of Object.entries(where)) {
    const column = table.columnsByName.get(name)
    if (!column) {
      throw new PipeflushError(
        'UNKNOWN_COLUMN',
        `${table.key} has no column "${name}" (in a find condition).`,
        { table: table.key, column: name },
      )
    }
    const col = comparedColumn(`t.${quoteIdentifier(name)}`, column)
    if (value === null) {
      conditions.push(`t.${quoteIdentifier(name)} is null`)
    } else if (Array.isArray(value) && !column.isArray) {
      params.push(value.map((v) => encode(v, column, table)))
      conditions.push(`${col} = any(${castTextList(`$${params.length}::text[]`, column)})`)
    } else {
      const text = encode(value, column, table)
      params.push(text ?? '')
      conditions.push(`${col} = ${castText(`$${params.length}::text`, column)}`)
    }
  }
  const order = table.primaryKey.map((k) => `t.${quoteIdentifier(k)}`).join(', ')
  const sql = `select ${selectList(table)} from ${table.sqlName} as t${conditions.length ? ` where ${conditions.join(' and ')}` : ''}${order ? ` order by ${order}` : ''}`
  return { sql, params }
}

function encode(value: unknown, column: ColumnModel, table: TableModel): string | null {
  return encodeValue(resolveRef(value, column), column, { table: table.key })
}

/** Entities given as values in conditions are resolved by the caller; plain values pass through. */
function resolveRef(value: unknown, _column: ColumnModel): unknown {
  return value
}
