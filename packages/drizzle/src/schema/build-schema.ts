import { defineSchema, type SchemaModel, type TableSpec } from '@pipeflush/core'
import type { PgColumn } from 'drizzle-orm/pg-core'
import { declaredNames, declaredRelations, relationKeys } from './relations.ts'
import { tableSpec } from './table-spec.ts'
import type { SchemaTable, SchemaTables } from './tables.ts'

/** The schema pipeflush writes with, made from the definitions (see {@link buildSchema}). */
export interface BuiltSchema {
  readonly model: SchemaModel
  /** Tables of the schema object left out of the model, and why (no primary key). */
  readonly untracked: ReadonlyMap<string, string>
}

/**
 * The schema model of a Drizzle schema object: every table with a primary key (see `tableSpec`),
 * keyed by its key in the schema object, its relations from the foreign keys named as the
 * application's `relations()` name them (with a foreign key for a declared relation that no
 * `references()` gives). No catalog read.
 */
export function buildSchema(
  schema: Readonly<Record<string, unknown>>,
  tables: SchemaTables,
  dbName: (column: PgColumn) => string,
  version: (table: SchemaTable) => string | undefined,
): BuiltSchema {
  const specs: Record<string, TableSpec> = {}
  const untracked = new Map<string, string>()
  for (const entry of tables.all()) {
    const spec = tableSpec(entry, { tables, dbName, version })
    if (spec === undefined)
      untracked.set(entry.key, 'its definition has no primary key, so pipeflush cannot track its rows')
    else specs[entry.key] = spec
  }
  // Foreign keys to tables left out are dropped (nothing to order against or navigate to).
  for (const [key, spec] of Object.entries(specs)) {
    const kept = (spec.foreignKeys ?? []).filter((fk) => specs[fk.references] !== undefined)
    specs[key] = { ...spec, foreignKeys: kept }
  }
  const declared = declaredRelations(schema, tables).filter((r) => specs[r.table] && specs[r.target])
  for (const [key, keys] of relationKeys(declared, specs)) {
    const spec = specs[key]!
    specs[key] = { ...spec, foreignKeys: [...(spec.foreignKeys ?? []), ...keys] }
  }
  const derived = define(specs, {})
  const relationNames = declaredNames(derived, declared)
  return {
    model: Object.keys(relationNames).length === 0 ? derived : define(specs, relationNames),
    untracked,
  }
}

function define(specs: Record<string, TableSpec>, relationNames: Record<string, string>): SchemaModel {
  // The specs are built from the definitions at run time: their names are not literal types.
  return defineSchema(specs as never, { relationNames })
}
