import { errors } from '../errors.ts'
import type { ColumnModel, ForeignKeyModel, SchemaModel, TableModel } from '../model/model.ts'
import { describeValue } from '../values/location.ts'

/**
 * The table, view or materialized view `key` of `schema`, if pipeflush can read its rows; else
 * `UNKNOWN_TABLE` (naming some relations it knows) or `UNSUPPORTED_TABLE` (a table without primary
 * key: its rows cannot be tracked). A view's rows are read-only whether it has a key or not. The one
 * check of `find`, `load` and `merge`.
 */
export function readableTable(schema: SchemaModel, key: string): TableModel {
  const table = schema.tables.get(key)
  if (table === undefined) {
    const shown = typeof key === 'string' ? `"${key}"` : describeValue(key)
    const partitioned = typeof key === 'string' ? schema.partitionOf?.get(key) : undefined
    if (partitioned !== undefined) throw errors.partitionNotTable(shown, partitioned, key)
    const known = [...schema.tables.keys()].slice(0, 30).join(', ')
    throw errors.unknownTable(shown, known, typeof key === 'string' ? key : undefined)
  }
  if (table.kind !== 'table') return table
  return trackedTable(table)
}

/**
 * The table `key` of `schema`, if pipeflush can write its rows; else `UNKNOWN_TABLE`, or
 * `UNSUPPORTED_TABLE` for a view (read-only) or a table without primary key. The one check of
 * `create`, `upsert` and planning alike; `what` names the write for the message.
 */
export function writableTable(schema: SchemaModel, key: string, what = 'a write'): TableModel {
  const table = readableTable(schema, key)
  if (table.kind !== 'table') throw errors.readOnly(table.key, table.kind, what)
  return table
}

/** `table` if it has a primary key, else `UNSUPPORTED_TABLE`. */
function trackedTable(table: TableModel): TableModel {
  if (table.primaryKey.length === 0) {
    throw errors.noPrimaryKey(table.key)
  }
  return table
}

/**
 * The column `name` of `table`, or `UNKNOWN_COLUMN` naming the table's columns.
 *
 * Every unknown column gets the same message, naming the columns there are.
 */
export function columnOf(table: TableModel, name: string): ColumnModel {
  const column = table.columnsByName.get(name)
  if (column === undefined) {
    const columns = table.columns.map((c) => c.name).join(', ')
    throw errors.unknownColumn(
      table.key,
      typeof name === 'string' ? `"${name}"` : describeValue(name),
      columns,
      typeof name === 'string' ? name : undefined,
    )
  }
  return column
}

/**
 * The column `name` of `table` if a row may be written with it (`insert`) or may change it (`update`);
 * else `UNKNOWN_COLUMN`, or `UNSUPPORTED_TABLE` for a column of a view (read-only), a generated column (never written) or an
 * `identity always` column changed by an update. The one check of `create`, assignments and planning.
 */
export function writableColumn(table: TableModel, name: string, kind: 'insert' | 'update'): ColumnModel {
  const column = columnOf(table, name)
  if (table.kind !== 'table') {
    throw errors.readOnly(table.key, table.kind, `an assignment to "${name}"`, name)
  }
  if (column.generated) {
    throw errors.generatedColumn(table.key, name)
  }
  if (kind === 'update' && column.identity === 'always') {
    throw errors.identityAlways(table.key, name)
  }
  return column
}

/**
 * {@link writableColumn} for a value the application gives a new row: an `identity always` column
 * takes none but its DEFAULT (the server refuses another, as PostgreSQL does without `overriding
 * system value`; a key is drawn from its sequence by pipeflush), so a value is `INVALID_VALUE`.
 *
 * @example
 * givenColumn(org, 'id', 3) // INVALID_VALUE: org.id is GENERATED ALWAYS AS IDENTITY
 * givenColumn(org, 'name', 'Acme') // the column
 */
export function givenColumn(table: TableModel, name: string, value: unknown): ColumnModel {
  const column = writableColumn(table, name, 'insert')
  if (column.identity === 'always' && value !== undefined && value !== null)
    throw errors.identityAlwaysGiven(table.key, name)
  return column
}

/**
 * `table`'s foreign key named `name` as the server names it in a violation: its own name, or for a
 * partitioned table's key that each partition declares, a partition's (see `ForeignKeyModel.aliases`).
 */
export function foreignKeyNamed(table: TableModel, name: string): ForeignKeyModel | undefined {
  return table.foreignKeys.find((fk) => fk.name === name || fk.aliases?.includes(name) === true)
}
