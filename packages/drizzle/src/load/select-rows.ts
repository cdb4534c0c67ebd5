import type { EntityManager } from '@pipeflush/core'
import { queryParamTexts } from '@pipeflush/core'
import * as drizzle from 'drizzle-orm'
import { Column, is, SQL, Subquery, sql } from 'drizzle-orm'
import type { PgDialect } from 'drizzle-orm/pg-core'
import { errors } from '../errors.ts'

/** What `select(query)` reads of a Drizzle select builder: its config, as its dialect builds it. */
interface SelectBuilder {
  readonly config?: { readonly fields: Record<string, unknown>; readonly setOperators?: readonly unknown[] }
  readonly dialect?: PgDialect
  readonly joinsNotNullableMap?: Record<string, boolean>
}

/** A selected field, as Drizzle's select list holds it. */
type Field = Column | SQL | SQL.Aliased | Subquery

/** A field of a selection at its path (`['author', 'name']` for a nested object). */
interface SelectedField {
  readonly path: readonly string[]
  readonly field: Field
}

/**
 * Drizzle's own functions that flatten a selection and make its result rows, which its driver
 * sessions run on every select (exported by drizzle-orm's index; its declarations mark them internal).
 */
interface SelectInternals {
  orderSelectedFields(fields: Record<string, unknown>): SelectedField[]
  mapResultRow(
    fields: readonly SelectedField[],
    row: readonly unknown[],
    joinsNotNullableMap: Record<string, boolean> | undefined,
  ): unknown
}
const internals = drizzle as unknown as Partial<SelectInternals>

/**
 * Runs any Drizzle select of pg-core (joins, `groupBy`, aggregates...) with `em`'s other reads of this
 * tick, and gives its rows as Drizzle's own select would: each field named `c0, c1...` in the select
 * list (so that two fields of one name, a join's `id`s, stay apart), each value mapped by its field
 * (a column's `mapFromDriverValue`, a `mapWith`), nested as the selection is and a left join's
 * missing row null, by Drizzle's own `mapResultRow`. Untracked.
 *
 * The driver gives what it gives Drizzle but for the date, timestamp and interval types, which
 * Drizzle reads as the server's text and pipeflush's pool parses: a field of those (a column, or SQL
 * mapped with one) is selected as text. Set operations (union...) are `INVALID_STATE`.
 */
export async function selectRows(em: EntityManager, query: unknown): Promise<unknown[]> {
  const builder = query as SelectBuilder | null
  const config = builder?.config
  const dialect = builder?.dialect
  if (config === undefined || dialect === undefined || typeof dialect.buildSelectQuery !== 'function') {
    fail('expected a select of drizzle-orm/pg-core (db.select()...)')
  }
  if ((config.setOperators?.length ?? 0) > 0)
    fail('a select combining selects (union, intersect, except) is not read here: run it with Drizzle')
  const { orderSelectedFields, mapResultRow } = internals
  if (typeof orderSelectedFields !== 'function' || typeof mapResultRow !== 'function')
    fail(
      'this drizzle-orm has no orderSelectedFields or mapResultRow: it is not a version pipeflush reads selects of',
    )
  const fields = orderSelectedFields(config.fields)
  const names = columnNames(fields)
  const aliased = fields.map(({ path, field }, i) => ({ path, field: aliasedField(field, names[i]!) }))
  const compiled = dialect.sqlToQuery(dialect.buildSelectQuery({ ...config, fieldsFlat: aliased } as never))
  const rows = await em.select({ text: compiled.sql, params: queryParamTexts(compiled.params) })
  return rows.map((row) =>
    mapResultRow(
      fields,
      names.map((name) => row[name]),
      builder!.joinsNotNullableMap,
    ),
  )
}

/**
 * The name each field is selected as: `c<i>`, but for an expression the application named (`.as()`),
 * which keeps its name (an `orderBy` may refer to it) unless another field takes that name too.
 */
function columnNames(fields: readonly SelectedField[]): string[] {
  const named = fields.map(({ field }) => (isNamedExpression(field) ? field.fieldAlias : undefined))
  const counts = new Map<string, number>()
  for (const name of named) if (name !== undefined) counts.set(name, (counts.get(name) ?? 0) + 1)
  // `__proto__` is no property a driver's row object can hold.
  const taken = (name: string) => /^c\d+$/.test(name) || name === '__proto__' || counts.get(name) !== 1
  return named.map((name, i) => (name !== undefined && !taken(name) ? name : `c${i}`))
}

/** An expression the application named with `.as()` (not a subquery's field, which is read by its name). */
function isNamedExpression(field: Field): field is SQL.Aliased {
  return is(field, SQL.Aliased) && !(field as unknown as { isSelectionField?: boolean }).isSelectionField
}

/** `field` selected as `name` (as text when Drizzle reads its type as text: see {@link selectRows}). */
function aliasedField(field: Field, name: string): SQL.Aliased {
  if (is(field, Subquery))
    fail('a subquery among the selected fields is not read here: select it as sql`(...)`')
  // Inside SQL, an aliased field stands for its name: an expression named with `.as()` is selected
  // by its own SQL (as Drizzle's select list writes it), a subquery's field by its name.
  const inner = isNamedExpression(field) ? field.sql : (field as SQL | SQL.Aliased | Column)
  // Cast whole: `${a} + interval '1 day'` is an operator expression, whose last operand alone a bare
  // `::text` would cast.
  return (readAsText(field) ? sql`(${inner})::text` : sql`${inner}`).as(name)
}

/** Whether the field's values are dates, timestamps or intervals (or arrays of them), by its column. */
function readAsText(field: Field): boolean {
  // An SQL's `decoder` (what `mapWith` set) is internal to Drizzle's declarations.
  const decoderOf = (s: SQL) => (s as unknown as { readonly decoder?: unknown }).decoder
  const decoder = is(field, Column)
    ? field
    : is(field, SQL)
      ? decoderOf(field as SQL)
      : is(field, SQL.Aliased)
        ? decoderOf((field as SQL.Aliased).sql)
        : undefined
  return is(decoder, Column) && TEXT_TYPES.test((decoder as Column).getSQLType())
}

const TEXT_TYPES = /^(timestamp|date|interval)\b/

function fail(why: string): never {
  throw errors.unsupportedQuery('select(query)', why)
}
