import type { ColumnSpecInput, ForeignKeySpec, OnDeleteAction, TableSpec, UniqueSpec } from '@pipeflush/core'
import { getTableConfig, type PgColumn } from 'drizzle-orm/pg-core'
import { errors } from '../errors.ts'
import { columnSpec } from './column-spec.ts'
import type { SchemaTable, SchemaTables } from './tables.ts'

/** What the factory knows besides the definitions: how the database names columns, version columns. */
export interface TableSpecContext {
  readonly tables: SchemaTables
  /** The database name of a column (Drizzle's `casing` of the application's `drizzle()` applied). */
  readonly dbName: (column: PgColumn) => string
  /** The version column's property per table key, if any. */
  readonly version: (table: SchemaTable) => string | undefined
}

/**
 * The `defineSchema` table of a Drizzle table: its columns by property (see `columnSpec`), primary
 * key, foreign keys to tables of the schema (named as Drizzle names them), unique constraints, unique
 * columns and unique indexes without a condition, its schema and name, and the version column.
 * `undefined` for a table without a primary key: pipeflush cannot track its rows.
 */
export function tableSpec(entry: SchemaTable, context: TableSpecContext): TableSpec | undefined {
  const config = getTableConfig(entry.table)
  const property = (column: { name: string }, of: SchemaTable = entry): string => {
    const found = of.propertyOf.get(column.name)
    if (found === undefined) {
      throw errors.invalidConfig(`${of.key}: no column named "${column.name}" in its definition`, of.key)
    }
    return found
  }
  const primaryKey =
    config.primaryKeys[0] !== undefined
      ? config.primaryKeys[0].columns.map((c) => property(c))
      : [...entry.columns].filter(([, c]) => c.primary).map(([key]) => key)
  if (primaryKey.length === 0) return undefined
  const columns: Record<string, ColumnSpecInput> = {}
  for (const [key, column] of entry.columns)
    columns[key] = columnSpec(entry, key, column, context.dbName(column), primaryKey.includes(key))
  const foreignKeys: ForeignKeySpec[] = []
  for (const fk of config.foreignKeys) {
    const { columns: from, foreignColumns, foreignTable } = fk.reference()
    const target = context.tables.find(foreignTable)
    if (target === undefined) continue // a table outside the schema object: nothing to order or navigate
    foreignKeys.push({
      columns: from.map((c) => property(c)),
      references: target.key,
      targetColumns: foreignColumns.map((c) => property(c, target)),
      name: fk.getName(),
      onDelete: (fk.onDelete ?? 'no action') as OnDeleteAction,
    })
  }
  const version = context.version(entry)
  return {
    schema: entry.schema,
    name: entry.name,
    columns,
    primaryKey,
    foreignKeys,
    uniques: uniques(entry, config, property),
    ...(version === undefined ? {} : { version }),
  }
}

/**
 * The unique column sets of a table, each once: unique constraints (`unique().on(...)`), unique
 * columns (`.unique()`), and unique indexes over plain columns without a condition (which an upsert's
 * `on conflict` may name as well).
 */
function uniques(
  entry: SchemaTable,
  config: ReturnType<typeof getTableConfig>,
  property: (column: { name: string }) => string,
): UniqueSpec[] {
  const out = new Map<string, UniqueSpec>()
  const add = (columns: readonly string[], name: string | undefined, nullsNotDistinct = false) => {
    const id = columns.join('\u0000')
    if (out.has(id)) return
    out.set(id, {
      columns,
      ...(name === undefined ? {} : { name }),
      ...(nullsNotDistinct ? { nullsNotDistinct } : {}),
    })
  }
  for (const unique of config.uniqueConstraints)
    add(
      unique.columns.map((c) => property(c)),
      unique.getName(),
      unique.nullsNotDistinct,
    )
  for (const [key, column] of entry.columns)
    if (column.isUnique) add([key], column.uniqueName, column.uniqueType === 'not distinct')
  for (const index of config.indexes) {
    const { unique, where, columns, name } = index.config
    if (!unique || where !== undefined) continue
    const named = columns.map((c) =>
      typeof (c as { name?: unknown }).name === 'string' ? (c as { name: string }) : undefined,
    )
    if (named.some((c) => c === undefined)) continue // an expression index: no columns to name
    add(
      named.map((c) => property(c!)),
      name,
    )
  }
  return [...out.values()]
}
