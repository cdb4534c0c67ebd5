import {
  type ForeignKeySpec,
  type RelationModel,
  relationsOf,
  type SchemaModel,
  type TableSpec,
} from '@pipeflush/core'
import {
  createTableRelationsHelpers,
  extractTablesRelationalConfig,
  is,
  Many,
  normalizeRelation,
  One,
  type Relation,
} from 'drizzle-orm'
import { errors } from '../errors.ts'
import type { SchemaTables } from './tables.ts'

/** One relation the application declared with Drizzle's `relations()`, in pipeflush's terms. */
export interface DeclaredRelation {
  /** The table key it belongs to, and its name there (`books.author`). */
  readonly table: string
  readonly name: string
  readonly kind: 'many-to-one' | 'one-to-many'
  readonly target: string
  /** Properties of `table` and of `target` it joins on, in order. */
  readonly columns: readonly string[]
  readonly targetColumns: readonly string[]
}

/**
 * The relations the schema object declares with `relations()`: each `one(target, { fields,
 * references })` a many-to-one, each `many(target)` the one-to-many its `one()` on the other side
 * gives (as Drizzle's relational queries pair them). A `one(target)` without `fields` (the side
 * without the foreign key) is left out: pipeflush's relations from it are lists.
 */
export function declaredRelations(
  schema: Readonly<Record<string, unknown>>,
  tables: SchemaTables,
): DeclaredRelation[] {
  const { tables: config, tableNamesMap } = extractTablesRelationalConfig(schema, createTableRelationsHelpers)
  const out: DeclaredRelation[] = []
  for (const [key, table] of Object.entries(config)) {
    const source = tables.byKey(key)
    if (source === undefined) continue
    for (const [name, relation] of Object.entries(table.relations) as [string, Relation][]) {
      const many = is(relation, Many)
      if (!many && !(is(relation, One) && (relation as One).config !== undefined)) continue
      const target = tables.find(relation.referencedTable)
      if (target === undefined) continue
      const normalized = pairedColumns(config, tableNamesMap, relation)
      if (normalized === undefined) continue
      const { fields, references } = normalized
      const props = (of: typeof source, columns: readonly { name: string }[]) =>
        columns.map((c) => of.propertyOf.get(c.name) ?? c.name)
      out.push({
        table: key,
        name,
        kind: many ? 'one-to-many' : 'many-to-one',
        target: target.key,
        columns: props(source, fields),
        targetColumns: props(target, references),
      })
    }
  }
  return out
}

/**
 * The columns a relation joins on, as Drizzle's relational queries pair them; undefined for a
 * `many()` without the `one()` that pairs with it (Drizzle refuses it when it is queried, and so
 * pipeflush knows no relation by its name: `UNKNOWN_RELATION` when a read names it).
 */
function pairedColumns(
  ...args: Parameters<typeof normalizeRelation>
): ReturnType<typeof normalizeRelation> | undefined {
  try {
    return normalizeRelation(...args)
  } catch {
    return undefined
  }
}

/**
 * Foreign keys for the declared many-to-one relations that no foreign key of the definitions gives
 * (Drizzle lets relations be declared without `references()`): added to the model so that pipeflush
 * derives the relation and orders the rows as a real key would (the database may hold one).
 */
export function relationKeys(
  declared: readonly DeclaredRelation[],
  specs: Readonly<Record<string, TableSpec>>,
): Map<string, ForeignKeySpec[]> {
  const out = new Map<string, ForeignKeySpec[]>()
  for (const r of declared) {
    if (r.kind !== 'many-to-one') continue
    const spec = specs[r.table]
    if (spec === undefined || specs[r.target] === undefined) continue
    const given = [...(spec.foreignKeys ?? []), ...(out.get(r.table) ?? [])]
    if (given.some((fk) => sameKey(fk, r))) continue
    const name = `${spec.name ?? r.table}_${r.columns.join('_')}_${r.name}_relation`
    out.set(r.table, [
      ...(out.get(r.table) ?? []),
      { columns: r.columns, references: r.target, targetColumns: r.targetColumns, name },
    ])
  }
  return out
}

function sameKey(fk: ForeignKeySpec, r: DeclaredRelation): boolean {
  return (
    fk.references === r.target &&
    same(fk.columns, r.columns) &&
    (fk.targetColumns === undefined || same(fk.targetColumns, r.targetColumns))
  )
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i])
}

/**
 * The `relationNames` that give the relations pipeflush derives from the foreign keys the names the
 * application declared (`{ 'books.author_id_fkey': 'writer' }`), ordered so that each new name is free
 * when it is applied; a derived relation that holds a declared name without being that relation
 * moves to its foreign key's name.
 */
export function declaredNames(
  model: SchemaModel,
  declared: readonly DeclaredRelation[],
): Record<string, string> {
  // Per table: derived name -> wanted name.
  const wanted = new Map<string, Map<string, string>>()
  for (const r of declared) {
    const derived = [...relationsOf(model, r.table).values()].find((m) => matches(m, r))
    if (derived === undefined) {
      throw errors.invalidConfig(
        `relations(): ${r.table}.${r.name} joins no foreign key pipeflush knows (${r.columns.join(', ')} -> ${r.target})`,
        r.table,
      )
    }
    const renames = wanted.get(r.table) ?? new Map<string, string>()
    if (![...renames.values()].includes(r.name) && !renames.has(derived.name))
      renames.set(derived.name, r.name)
    wanted.set(r.table, renames)
  }
  const out: Record<string, string> = {}
  for (const [table, renames] of wanted) {
    const relations = relationsOf(model, table)
    const taken = new Set(relations.keys())
    const wantedNames = new Set(renames.values())
    // A derived relation in the way of a declared name, not itself declared: to its foreign key's name.
    for (const [name, relation] of relations) {
      if (!renames.has(name) && wantedNames.has(name)) renames.set(name, relation.foreignKey)
    }
    const pending = [...renames].filter(([from, to]) => from !== to)
    for (const [from] of pending) taken.add(from)
    while (pending.length > 0) {
      const at = pending.findIndex(([from, to]) => !taken.has(to) || to === from)
      if (at < 0) {
        throw errors.invalidConfig(
          `relations(): the names declared for ${table} swap names pipeflush derives (${pending.map(([f, t]) => `${f} -> ${t}`).join(', ')})`,
          table,
        )
      }
      const [[from, to]] = pending.splice(at, 1) as [[string, string]]
      out[`${table}.${from}`] = to
      taken.delete(from)
      taken.add(to)
    }
  }
  return out
}

function matches(m: RelationModel, r: DeclaredRelation): boolean {
  return (
    m.kind === r.kind &&
    m.target === r.target &&
    same(m.columns, r.columns) &&
    same(m.targetColumns, r.targetColumns)
  )
}
