import type { ColumnSpec } from '@pipeflush/core'

type ColumnOptions = Omit<Extract<ColumnSpec, { sql: string }>, 'sql' | 'type' | 'text'>

import { Column, is, SQL } from 'drizzle-orm'
import type { PgColumn } from 'drizzle-orm/pg-core'
import { errors } from '../errors.ts'
import { valueMapping } from './column-values.ts'
import { quoteIdentifier } from './names.ts'
import type { SchemaTable } from './tables.ts'

/**
 * Serial columns: the integer type they are (`serial` is a shorthand of CREATE TABLE, not a type),
 * their sequence the one the column owns (found by the server when ids are drawn: see `serial`).
 */
const SERIALS: ReadonlyMap<string, string> = new Map([
  ['PgSmallSerial', 'smallint'],
  ['PgSerial', 'integer'],
  ['PgBigSerial53', 'bigint'],
  ['PgBigSerial64', 'bigint'],
])

/** Enum columns: declared to pipeflush with their labels, which it checks before sending. */
const ENUMS: ReadonlySet<string> = new Set(['PgEnumColumn', 'PgEnumObjectColumn'])

/**
 * Types whose values Drizzle's drivers hand to the column as the server's text (timestamps), where
 * pipeflush's codec would decode a Date: such columns are declared `text: true`, so that the column's
 * own mapping gets the text (microseconds, offset) as Drizzle's select does.
 */
const RAW_TEXT_TYPE = /^\s*timestamp\b/i

/**
 * The `defineSchema` column of Drizzle column `column` (property `property` of `table`, named
 * `dbName` in the database; `keyPart` when it is part of the table's primary key): its SQL type as Drizzle writes it (`getSQLType()`), nullability, default,
 * identity, serial sequence, generated, and the mapping between Drizzle's values and pipeflush's
 * (`column-values.ts`).
 *
 * The schema comes from the definitions: no catalog read is needed.
 */
export function columnSpec(
  table: SchemaTable,
  property: string,
  column: PgColumn,
  dbName: string,
  keyPart = false,
): ColumnSpec {
  const sqlType = SERIALS.get(column.columnType) ?? column.getSQLType()
  const base = column.columnType === 'PgArray' ? baseColumn(table, property, column) : column
  const isArray = base !== column
  const identity = column.generatedIdentity
  const options: ColumnOptions = {
    name: dbName,
    // A serial column is NOT NULL whatever its definition says (Drizzle's bigint-mode bigserial says
    // nullable), and so is a primary key's column (Drizzle marks a single column's `.primaryKey()`, not
    // the columns of `primaryKey({ columns })`).
    nullable: !column.notNull && !SERIALS.has(column.columnType) && !keyPart,
    ...(identity === undefined
      ? {}
      : { identity: identity.type === 'always' ? 'always' : ('by default' as const) }),
    ...(identity?.sequenceName === undefined ? {} : { sequence: qualified(table, identity.sequenceName) }),
    ...(SERIALS.has(column.columnType) ? { serial: true } : {}),
    ...(column.generated === undefined ? {} : { generated: true }),
    ...generatedFromOf(table, column),
    ...(hasServerDefault(column) ? { default: true } : {}),
  }
  const mapping = valueMapping(column, RAW_TEXT_TYPE.test(sqlType) ? '' : sqlType, keyPart)
  if (ENUMS.has(base.columnType)) {
    const labels = (base as unknown as { enumValues: readonly string[] }).enumValues
    const { enumName, schema } = (base as unknown as { enum: { enumName: string; schema?: string } }).enum
    const name =
      schema === undefined
        ? quoteIdentifier(enumName)
        : `${quoteIdentifier(schema)}.${quoteIdentifier(enumName)}`
    return {
      type: isArray ? 'enum[]' : 'enum',
      enumLabels: labels,
      sqlType: name,
      ...options,
      ...(mapping === undefined ? {} : { mapping }),
    }
  }
  return {
    sql: sqlType,
    ...(RAW_TEXT_TYPE.test(sqlType) ? { text: true } : {}),
    ...options,
    ...(mapping === undefined ? {} : { mapping }),
  }
}

/**
 * Whether the database fills the column when a row leaves it out: a `default()`, `defaultNow()`,
 * `defaultRandom()`... (a `$defaultFn` or `$onUpdate` runs in the application, at `create`).
 */
function hasServerDefault(column: PgColumn): boolean {
  if (column.default !== undefined) return true
  return column.hasDefault && column.defaultFn === undefined && column.onUpdateFn === undefined
}

/** The element column of a one-dimensional array column; arrays of arrays are refused. */
function baseColumn(table: SchemaTable, property: string, column: PgColumn): PgColumn {
  const base = (column as unknown as { baseColumn: PgColumn }).baseColumn
  if (base.columnType === 'PgArray') {
    throw errors.invalidConfig(
      `${table.key}.${property}: arrays of arrays are not supported by pipeflush (one-dimensional arrays are)`,
      table.key,
      property,
    )
  }
  return base
}

/** A sequence of `table`'s schema, qualified and quoted. */
function qualified(table: SchemaTable, sequence: string): string {
  return `${quoteIdentifier(table.schema)}.${quoteIdentifier(sequence)}`
}

/**
 * `{ generatedFrom }` of a generated column: the properties of `table` whose columns its
 * `generatedAlwaysAs` SQL interpolates (`sql\`${t.a} * 2\``), so that a stored row's change of one
 * that a generated primary key is computed from is refused as a change of its key is. Nothing for a
 * column not generated, or whose expression names no column that way (a constant, raw SQL text).
 */
function generatedFromOf(table: SchemaTable, column: PgColumn): { generatedFrom?: string[] } {
  const as = column.generated?.as
  if (as === undefined) return {}
  const expression: unknown = typeof as === 'function' ? (as as () => SQL)() : as
  const found = new Set<string>()
  const visit = (chunk: unknown): void => {
    if (is(chunk, SQL)) for (const part of chunk.queryChunks) visit(part)
    else if (is(chunk, Column)) {
      for (const [property, own] of table.columns) if (own === chunk) found.add(property)
    }
  }
  visit(expression)
  return found.size === 0 ? {} : { generatedFrom: [...found] }
}
