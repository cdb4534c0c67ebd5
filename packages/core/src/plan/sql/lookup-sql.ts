import type { TableModel } from '../../model/model.ts'
import { columnSql } from '../../schema/column-sql.ts'
import { castText, quoteStringLiteral } from '../../values/index.ts'
import { LOOKUP_MARKER } from '../statements/stale-marker.ts'
import { keyMatchSql } from './sql-text.ts'

/**
 * A column whose rows may take their value by a lookup on an upserted table's conflict columns (see
 * `plan/rows/conflict-ref.ts`): `column` of the statement's table takes `targetColumn` of the `target` row
 * whose `conflict` columns hold the values of extra parameter columns.
 */
export interface LookupSql {
  readonly column: string
  readonly target: TableModel
  readonly targetColumn: string
  readonly conflict: readonly string[]
}

/**
 * The unnest names of the lookups' extra parameter columns, in order: `$l0_0`, `$l0_1`, `$l1_0`...
 * (one `$` more while the table has a column of that name).
 *
 * The unnest also names the written columns, which these must never clash with.
 */
export function lookupNames(table: TableModel, lookups: readonly LookupSql[]): string[] {
  let prefix = '$l'
  const taken = (name: string) => table.columnsByName.has(name)
  while (lookups.some((l, j) => l.conflict.some((_, i) => taken(`${prefix}${j}_${i}`)))) prefix = `$${prefix}`
  return lookups.flatMap((l, j) => l.conflict.map((_, i) => `${prefix}${j}_${i}`))
}

/**
 * `values` (the cast text of each written column, in `columns` order) with each lookup's column
 * taking the looked-up value when its own is NULL; `texts`, the extra parameter columns' texts. A
 * lookup that finds no row fails the statement (see {@link missingSql}).
 *
 * A row that gives the key keeps it; only a reference to an upserted row is looked up.
 */
export function withLookups(
  table: TableModel,
  values: readonly string[],
  columns: readonly string[],
  lookups: readonly LookupSql[],
  texts: readonly string[],
): string[] {
  const out = [...values]
  let at = 0
  for (const lookup of lookups) {
    const i = columns.indexOf(lookup.column)
    const own = texts.slice(at, at + lookup.conflict.length)
    at += lookup.conflict.length
    out[i] = `coalesce(${out[i]}, ${lookupSql(lookup, own)}, ${missingSql(table, lookup, own)})`
  }
  return out
}

/**
 * What a lookup that finds no row gives: for a row that gave conflict values (it references an
 * upserted row), an error naming the statement's table, the column and the upserted table (the marker's text cast to int
 * fails: see `lookup-check.ts`), of the looked-up column's type; null for any other row. The upserted
 * row holds other values than its upsert gave (a trigger changed them): without it, the reference
 * was written NULL and the flush committed.
 */
function missingSql(table: TableModel, lookup: LookupSql, texts: readonly string[]): string {
  const { target } = lookup
  const payload = JSON.stringify({ table: table.key, column: lookup.column, target: target.key })
  // Made of a volatile call: the server folds a constant expression when it plans the statement,
  // and the cast of a constant marker would fail every statement, its branch taken or not.
  const marker = `${quoteStringLiteral(`${LOOKUP_MARKER}${payload}`)} || pg_catalog.left(pg_catalog.random()::text, 0)`
  const fail = `(${marker})::int::text`
  const given = texts.map((text) => `${text} is not null`).join(' and ')
  return `case when ${given} then ${castText(fail, target.columnsByName.get(lookup.targetColumn)!)} end`
}

/** `(select x."id" from "public"."tag" as x where x."name" = <text>::text)` */
function lookupSql(lookup: LookupSql, texts: readonly string[]): string {
  const { target } = lookup
  const columns = lookup.conflict.map((name) => target.columnsByName.get(name)!)
  const where = keyMatchSql('x', texts, columns)
  return `(select x.${columnSql(target, lookup.targetColumn)} from ${target.sqlName} as x where ${where})`
}

/** A text naming the lookups (part of a statement shape's cache id). */
export function lookupsId(lookups: readonly LookupSql[]): string {
  return lookups
    .map((l) => `${l.column}>${l.target.key}.${l.targetColumn}(${l.conflict.join(',')})`)
    .join(';')
}
