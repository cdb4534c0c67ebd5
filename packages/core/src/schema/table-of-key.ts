import type { TableModel } from '../model/model.ts'

/** Each table's schema, by key: set as a schema model is built (see `buildSchemaModel`). */
const schemas = new WeakMap<TableModel, ReadonlyMap<string, TableModel>>()

/** Records `tables` (a schema model's, by key) as each of their schemas. */
export function recordSchemaTables(tables: ReadonlyMap<string, TableModel>): void {
  for (const table of tables.values()) schemas.set(table, tables)
}

/**
 * The table of key `key` in `from`'s schema (a foreign key's target), or undefined.
 *
 * @example
 * tableOfKey(editionNote, 'edition') // the edition table, which editionNote's foreign key references
 */
export function tableOfKey(from: TableModel, key: string): TableModel | undefined {
  return schemas.get(from)?.get(key)
}

/** The tables of `table`'s schema, by key (undefined for a table no schema model recorded). */
export function schemaTablesOf(table: TableModel): ReadonlyMap<string, TableModel> | undefined {
  return schemas.get(table)
}
