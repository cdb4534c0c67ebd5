import { PipeflushError } from '../errors.ts'
import { describeValue } from '../values/location.ts'
import type { ColumnModel, SchemaModel, TableModel } from './model.ts'

/**
 * The table `key` of `schema`, if pipeflush can track its rows; else `UNKNOWN_TABLE` (naming some
 * tables it knows) or `UNSUPPORTED_TABLE` (no primary key). The one check of `create`, reads and
 * planning alike.
 *
 * @example
 * writableTable(schema, 'book').primaryKey // ['id']
 */
export function writableTable(schema: SchemaModel, key: string): TableModel {
  const table = schema.tables.get(key)
  if (table === undefined) {
    const known = [...schema.tables.keys()].slice(0, 30).join(', ')
    const shown = typeof key === 'string' ? `"${key}"` : describeValue(key)
    throw new PipeflushError('UNKNOWN_TABLE', `Unknown table ${shown} (known: ${known}).`, {
      table: typeof key === 'string' ? key : undefined,
    })
  }
  if (table.primaryKey.length === 0) {
    throw new PipeflushError(
      'UNSUPPORTED_TABLE',
      `Table ${table.key} has no primary key: pipeflush cannot track its rows.`,
      { table: table.key },
    )
  }
  return table
}

/**
 * The column `name` of `table`, or `UNKNOWN_COLUMN` naming the table's columns.
 *
 * @example
 * columnOf(book, 'title').type // 'text'
 */
export function columnOf(table: TableModel, name: string): ColumnModel {
  const column = table.columnsByName.get(name)
  if (column === undefined) {
    const columns = table.columns.map((c) => c.name).join(', ')
    throw new PipeflushError(
      'UNKNOWN_COLUMN',
      `${table.key} has no column ${typeof name === 'string' ? `"${name}"` : describeValue(name)} (columns: ${columns}).`,
      { table: table.key, column: typeof name === 'string' ? name : undefined },
    )
  }
  return column
}

/**
 * The column `name` of `table` if a row may be written with it (`insert`) or may change it (`update`);
 * else `UNKNOWN_COLUMN`, or `UNSUPPORTED_TABLE` for a generated column (never written) or an
 * `identity always` column changed by an update. The one check of `create`, assignments and planning.
 *
 * @example
 * writableColumn(book, 'title', 'insert')
 */
export function writableColumn(table: TableModel, name: string, kind: 'insert' | 'update'): ColumnModel {
  const column = columnOf(table, name)
  if (column.generated) {
    throw new PipeflushError(
      'UNSUPPORTED_TABLE',
      `${table.key}.${name} is a generated column: it cannot be written.`,
      { table: table.key, column: name },
    )
  }
  if (kind === 'update' && column.identity === 'always') {
    throw new PipeflushError(
      'UNSUPPORTED_TABLE',
      `${table.key}.${name} is GENERATED ALWAYS AS IDENTITY: it cannot be updated.`,
      { table: table.key, column: name },
    )
  }
  return column
}
