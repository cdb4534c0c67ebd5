import { errors } from '../errors.ts'
import type { ColumnModel, ScalarType } from '../model/model.ts'
import { quoteIdentifier } from './identifier.ts'

const BASE_TYPES: Readonly<Record<Exclude<ScalarType, 'enum' | 'other'>, string>> = {
  int2: 'int2',
  int4: 'int4',
  int8: 'int8',
  numeric: 'numeric',
  float4: 'float4',
  float8: 'float8',
  text: 'text',
  varchar: 'varchar',
  bpchar: 'bpchar',
  bool: 'bool',
  date: 'date',
  timestamp: 'timestamp',
  timestamptz: 'timestamptz',
  uuid: 'uuid',
  json: 'json',
  jsonb: 'jsonb',
  bytea: 'bytea',
}

/**
 * Names of pg_catalog types that are SQL keywords, so written quoted in casts. Quoting also keeps
 * their unconstrained meaning: a bare `bit` in a cast is `bit(1)` and a bare `char` is `char(1)`,
 * both of which would truncate, while `"bit"` and `"char"` name the types themselves.
 */
const KEYWORD_TYPE_NAMES: ReadonlySet<string> = new Set([
  'any',
  'bit',
  'char',
  'interval',
  'json',
  'numeric',
  'time',
  'timestamp',
  'varchar',
])

const PLAIN_NAME = /^[a-z_][a-z0-9_]*$/

/**
 * How a type is named in a cast: a pg_catalog type (or an unqualified name) bare, or quoted when it is a
 * keyword or not a plain lowercase name; a type of another schema qualified and quoted.
 *
 * Type names go into SQL text (casts), where a keyword such as `bit` means the type only quoted.
 */
export function typeSqlName(schema: string | undefined, name: string): string {
  if (schema !== undefined && schema !== 'pg_catalog')
    return `${quoteIdentifier(schema)}.${quoteIdentifier(name)}`
  return PLAIN_NAME.test(name) && !KEYWORD_TYPE_NAMES.has(name) ? name : quoteIdentifier(name)
}

/** The element type of `column` in casts, without `[]`. */
function elementCastType(column: ColumnModel): string {
  if (column.type === 'enum' || column.type === 'other')
    return column.castType ?? column.sqlType.replace(/\[\]$/, '')
  const base = BASE_TYPES[column.type]
  if (base === undefined)
    throw errors.internal('castSql', `no SQL cast for column type ${String(column.type)}`)
  return base
}

/**
 * The SQL type a text element is cast to for `column`: `int8`, `timestamptz[]`, for enums and other
 * types their `castType` (`"public"."mood"`, `inet[]`, `"bit"`). Built-in types are cast to their
 * unconstrained base type, never to `varchar(n)`/`char(n)`/`bit(n)`: an explicit cast to those
 * truncates silently, while the assignment to the column checks the length (and domains are checked
 * there too). Columns with an `inputTypmod` need {@link castText}, which reads the text with it.
 */
export function castSql(column: ColumnModel): string {
  const base = elementCastType(column)
  return column.isArray ? `${base}[]` : base
}

/** `pg_catalog.interval_in(<text>::cstring, ...)`: the input function reading `text` with the column's typmod. */
function inputCall(text: string, column: ColumnModel, typmod: number): string {
  if (elementCastType(column) !== '"interval"') {
    throw errors.internal('castText', `an input typmod is only supported for interval, not ${column.sqlType}`)
  }
  return `pg_catalog.interval_in(${text}::cstring, 'pg_catalog.interval'::regtype, ${typmod})`
}

/** `array(select <input of each element> ...)`: an array whose elements are read with the input typmod, order kept. */
function inputArray(textArray: string, column: ColumnModel, typmod: number): string {
  return (
    `array(select ${inputCall('pf_e', column, typmod)} ` +
    `from unnest(${textArray}) with ordinality as pf_u(pf_e, pf_i) order by pf_i)`
  )
}

/**
 * SQL converting `text` (an expression of type text: an unnest element, a parameter) to `column`'s
 * type: a cast (`d."c"::inet`), or for a column with an `inputTypmod` a call of the type's input
 * function with it (NULL stays NULL). Constant for a column.
 */
export function castText(text: string, column: ColumnModel): string {
  const typmod = column.inputTypmod
  if (typmod === undefined) return `${text}::${castSql(column)}`
  if (!column.isArray) return inputCall(text, column, typmod)
  return `case when ${text} is null then null else ${inputArray(`${text}::text[]`, column, typmod)} end`
}

/**
 * `expr`, a column of `column`'s type, as the side of a comparison with a value converted by
 * {@link castText}: as is, or for a domain column cast to the type it is over (there is no `=` between
 * a domain over an enum, or an array of a domain, and the base type; casting the column instead of the
 * value never truncates the value, and a domain's cast to its base type keeps the column's index usable).
 */
export function comparedColumn(expr: string, column: ColumnModel): string {
  return column.isDomain === true ? `${expr}::${castSql(column)}` : expr
}

/**
 * SQL converting `textArray` (an expression of type `text[]` holding values of the non-array
 * `column`) to an array of the column's type, for `= any(...)`.
 *
 * A list of keys goes as one `text[]` parameter, whatever the key's type.
 */
export function castTextList(textArray: string, column: ColumnModel): string {
  const typmod = column.inputTypmod
  if (typmod === undefined) return `${textArray}::${elementCastType(column)}[]`
  return inputArray(textArray, column, typmod)
}
