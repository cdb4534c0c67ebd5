import type { Param } from '../drivers/driver.ts'
import { errors } from '../errors.ts'
import type { ColumnModel, TableModel } from '../model/model.ts'
import { columnSql } from '../schema/column-sql.ts'
import { perTable } from '../schema/per-table.ts'
import { arrayLiteral } from '../values/array-literal.ts'
import { equalityOperator } from '../values/equality.ts'
import {
  castText,
  castTextList,
  comparedColumn,
  encodeKeyValue,
  encodeValue,
  type ValueLocation,
} from '../values/index.ts'

/**
 * A where clause: column = value, column = any(values) for arrays of values (a null among them: or
 * `is null`), `is null` for null.
 */
export type Where = Readonly<Record<string, unknown>>

/**
 * What a condition's values are, named in the message of a value its column cannot take
 * (`actor.actor_id (the key given to load): expected a number...`).
 */
export type ConditionOf = 'the find condition' | 'a $where condition' | 'the key given to load'

/**
 * The select list of a table: every column as text, aliased `c0, c1...`, so results do not depend on
 * the client's type parsers or column-name transforms.
 */
export function selectList(table: TableModel, alias = 't'): string {
  return table.columns.map((c, i) => `${alias}.${columnSql(table, c.name)}::text as c${i}`).join(', ')
}

/** Parameters as the driver takes them: a list of texts as one `text[]` literal. */
export function textParams(params: readonly (string | null | readonly (string | null)[])[]): Param[] {
  return params.map((p): Param => (Array.isArray(p) ? arrayLiteral(p) : (p as string | null)))
}

/** ` order by` the table's primary key (nothing for a table without one). */
export function orderBy(table: TableModel, alias: string): string {
  const order = table.primaryKey.map((k) => `${alias}.${columnSql(table, k)}`).join(', ')
  return order ? ` order by ${order}` : ''
}

/**
 * The conditions of `where` on `table` aliased `alias`, joined by `and` (empty for none), with one
 * text parameter each from `$1` (`$n::text::type`, or `= any($n::text[]::type[])` for a list;
 * converted by `castText`/`castTextList`), constant text per (table, where shape). `placeholder`
 * writes the n-th parameter (`$n` unless said otherwise); `of` names the values in the message of one
 * its column cannot take.
 *
 * Shared by finds and the roots of graph loads, so a condition reads the same in both.
 */
export function whereSql(
  table: TableModel,
  where: Where,
  alias: string,
  placeholder: (n: number) => string = (n) => `$${n}`,
  of: ConditionOf = 'the find condition',
): { sql: string; params: (string | (string | null)[])[] } {
  const at: ValueLocation = { table: table.key, what: of }
  const conditions: string[] = []
  const params: (string | (string | null)[])[] = []
  for (const [name, value] of Object.entries(where)) {
    const column = table.columnsByName.get(name)
    if (!column) {
      throw errors.unknownFindColumn(table.key, name)
    }
    const col = comparedColumn(`${alias}.${columnSql(table, name)}`, column)
    const isNull = `${alias}.${columnSql(table, name)} is null`
    if (value === null) {
      conditions.push(isNull)
    } else if (anyOfList(column, value)) {
      // Any of the list; a null in it is `is null` (`= any` never matches a null).
      const values = value.filter((v) => v !== null)
      const orNull = values.length < value.length
      if (orNull && values.length === 0) {
        conditions.push(isNull)
        continue
      }
      const op = equalityOperator(column, table.key, of)
      params.push(values.map((v) => encodeValue(v, column, at)))
      const any = `${col} ${op} any(${castTextList(`${placeholder(params.length)}::text[]`, column)})`
      conditions.push(orNull ? `(${any} or ${isNull})` : any)
    } else {
      const op = equalityOperator(column, table.key, of)
      const text = encodeValue(value, column, at)
      params.push(text ?? '')
      conditions.push(`${col} ${op} ${castText(`${placeholder(params.length)}::text`, column)}`)
    }
  }
  return { sql: conditions.join(' and '), params }
}

/**
 * Whether a `where` value is a list, any of whose values a row may hold: an array, but on an array
 * column or a jsonb one an array is one value (an array, a JSON array), compared whole.
 */
export function anyOfList(column: ColumnModel, value: unknown): value is readonly unknown[] {
  return Array.isArray(value) && !column.isArray && column.type !== 'jsonb'
}

/**
 * How many parameters {@link whereSql} makes of `where` on `table`: one per condition but a null and
 * a non-empty list of nulls only (`is null`). Columns it does not know count as one: whereSql refuses them.
 */
export function whereParamCount(table: TableModel, where: Where): number {
  let n = 0
  for (const name in where) {
    if (!Object.hasOwn(where, name)) continue
    const value = where[name]
    if (value === null) continue
    // A list of nulls only is `is null`; an empty list is a parameter all the same (`= any('{}')`).
    const column = table.columnsByName.get(name)
    if (
      column !== undefined &&
      anyOfList(column, value) &&
      value.length > 0 &&
      value.every((v) => v === null)
    )
      continue
    n++
  }
  return n
}

/**
 * The condition that the row aliased `t0` has the primary key `key` (a where-object of the key's
 * columns, as `keyWhere` makes it, a scalar value each), with its parameters: {@link whereSql}'s,
 * its text made once per table for a one-column key (a load by key builds no text).
 *
 * @example
 * keyWhereT0(book, { id: 7 }) // { sql: 't0."id" = $1::text::int8', params: ['7'] }
 */
export function keyWhereT0(
  table: TableModel,
  key: Where,
): { sql: string; params: (string | (string | null)[])[] } {
  const sql = singleKeyWhere(table)
  if (sql === undefined) return whereSql(table, key, 't0', undefined, 'the key given to load')
  const column = table.columnsByName.get(table.primaryKey[0]!)!
  return { sql, params: [encodeKeyValue(key[column.name], column, loadKeyAt(table)) ?? ''] }
}

/** Where the values of a key given to load are, for messages (one object per table). */
export const loadKeyAt = perTable(
  (table): ValueLocation => ({ table: table.key, what: 'the key given to load' }),
)

/** The text {@link whereSql} writes for a one-column key of `table` aliased `t0`; undefined for other keys. */
const singleKeyWhere = perTable((table): string | undefined => {
  if (table.primaryKey.length !== 1) return undefined
  const name = table.primaryKey[0]!
  const column = table.columnsByName.get(name)!
  return `${comparedColumn(`t0.${columnSql(table, name)}`, column)} = ${castText('$1::text', column)}`
})

/**
 * The condition that `alias`'s row has one of `keys` (canonical key values by column), for a key of
 * any number of columns: `= any($n)` for one column, else the columns `in` an unnest of one array per
 * column (also for a key with an array column, each key's value one element). Its parameters are
 * numbered from `$first`.
 *
 * The loads by key of one tick go in one select (see `key-loads.ts`), whatever the key's columns.
 */
export function keySetSql(
  table: TableModel,
  keys: readonly Readonly<Record<string, unknown>>[],
  alias: string,
  first: number,
): { sql: string; params: (string | null)[][] } {
  const columns = table.primaryKey.map((name) => table.columnsByName.get(name)!)
  const params = columns.map((c) => keys.map((k) => encode(k[c.name], c, table)))
  if (columns.some((c) => c.isArray)) return arrayKeySetSql(table, columns, alias, first, params)
  if (columns.length === 1) {
    const c = columns[0]!
    const col = comparedColumn(`${alias}.${columnSql(table, c.name)}`, c)
    return { sql: `${col} = any(${castTextList(`$${first}::text[]`, c)})`, params }
  }
  const cols = columns.map((c) => comparedColumn(`${alias}.${columnSql(table, c.name)}`, c)).join(', ')
  const arrays = columns.map((c, i) => castTextList(`$${first + i}::text[]`, c)).join(', ')
  return { sql: `(${cols}) in (select * from unnest(${arrays}))`, params }
}

/**
 * {@link keySetSql} for a key with an array column, whose key value is one array: each key's array
 * literal is one text of its column's `text[]` parameter, read as the column's type (`= any` of an
 * `int4[]` would compare the column with integers, and an unnest of one would give integers).
 */
function arrayKeySetSql(
  table: TableModel,
  columns: readonly ColumnModel[],
  alias: string,
  first: number,
  params: (string | null)[][],
): { sql: string; params: (string | null)[][] } {
  const cols = columns.map((c) => comparedColumn(`${alias}.${columnSql(table, c.name)}`, c)).join(', ')
  const names = columns.map((_, i) => `pf_k${i}`)
  const values = columns.map((c, i) => castText(names[i]!, c)).join(', ')
  const texts = columns.map((_, i) => `$${first + i}::text[]`).join(', ')
  return {
    sql: `(${cols}) in (select ${values} from unnest(${texts}) as pf_keys(${names.join(', ')}))`,
    params,
  }
}

/** A key's value as text (entities given as values are resolved to keys by the caller). */
function encode(value: unknown, column: ColumnModel, table: TableModel): string | null {
  return encodeKeyValue(value, column, { table: table.key })
}
