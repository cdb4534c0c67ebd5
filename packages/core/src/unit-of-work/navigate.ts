import { errors } from '../errors.ts'
import type { SchemaModel, TableModel } from '../model/model.ts'
import { type RelationModel, relationsOf } from '../schema/relations.ts'
import { NOT_A_RELATION } from '../track/entity-proxy.ts'
import { type EntityState, stateOf } from '../track/entity-state.ts'
import { normalizeKeyValue } from '../values/index.ts'
import { canonicalText, keyLocation } from './referring-index.ts'
import { inReadOrder, referenceRead } from './relation-reads.ts'
import type { UnitOfWork } from './unit-of-work.ts'

/**
 * Relation `name` of the entity of `state`, as this unit of work holds it now (its pending changes
 * included: a book whose `author_id` was assigned another author is among that author's `books`):
 * - many-to-one: the related entity (null for a null foreign key), when this unit of work manages
 *   it; else null when a graph load read the relation for the foreign key it holds now (its row
 *   failed the read's `$where`, or was removed since, as a one-to-many leaves removed ones out); else
 *   `NOT_LOADED`;
 * - one-to-many and many-to-many: the related entities, once a graph load read them for this entity
 *   (`with`, `populate`), or always for an entity this unit of work inserts or inserted (no stored row
 *   referred to it before); else `NOT_LOADED`. New entities referencing it are included;
 * - one-to-one: as a one-to-many, the one entity referencing it, or null.
 * Related rows a graph load read in an asked order (`$orderBy`) come in that order. Never a query. {@link NOT_A_RELATION} when the table has no relation `name`.
 */
export function navigate(uow: UnitOfWork, schema: SchemaModel, state: EntityState, name: string): unknown {
  const relation = relationsOf(schema, state.table.key).get(name)
  if (relation === undefined) return NOT_A_RELATION
  const target = schema.tables.get(relation.target)!
  if (relation.kind === 'many-to-one') return manyToOne(uow, state, relation, target)
  // A row this unit of work inserts or inserted: nothing stored refers to it but what it holds.
  const whole = state.status === 'new' || state.insertedHere === true
  if (!whole && !state.loaded?.has(name)) throw errors.notLoaded(state.table.key, name, state.key)
  const mine = canonicalText(state.table, relation.columns, state.row)
  if (relation.through === undefined) {
    const referring = uow.referring(target, relation.targetColumns).referring(state, mine)
    if (relation.kind === 'one-to-one') return referring[0]?.entity ?? null
    return inReadOrder(state, name, referring).map((s) => s.entity)
  }
  const link = schema.tables.get(relation.through.table)!
  const out: EntityState[] = []
  for (const l of uow.referring(link, relation.through.columns).referring(state, mine)) {
    const related = find(uow, target, relation.targetColumns, l, relation.through.targetColumns)
    if (related !== undefined) out.push(related)
  }
  return inReadOrder(state, name, out).map((s) => s.entity)
}

/**
 * The entity a many-to-one refers to, or null; `NOT_LOADED` when this unit of work does not hold it
 * and no graph load read it for the foreign key the entity holds now.
 */
function manyToOne(
  uow: UnitOfWork,
  state: EntityState,
  relation: RelationModel,
  target: TableModel,
): unknown {
  const values = relation.columns.map((c) => state.row[c])
  if (values.some((v) => v === null || v === undefined)) return null
  const assigned = values.length === 1 ? stateOf(values[0]) : undefined
  if (assigned !== undefined) return assigned.entity
  const found = find(uow, target, relation.targetColumns, state, relation.columns)
  if (found !== undefined) return found.entity
  // Only while the unit of work holds the entity: cleared (detached), what was read of it is gone too.
  const held = state.status === 'managed' || state.status === 'new'
  const read = held ? referenceRead(state, relation.name) : undefined
  if (read !== undefined && read !== null && read === canonicalText(state.table, relation.columns, state.row))
    return null // read for this key, and no row held for it: its `$where` did not match it, or it was removed since
  throw errors.notLoaded(state.table.key, relation.name, state.key)
}

/** The entity of `target` whose `targetColumns` hold what `from`'s `columns` hold. */
function find(
  uow: UnitOfWork,
  target: TableModel,
  targetColumns: readonly string[],
  from: EntityState,
  columns: readonly string[],
): EntityState | undefined {
  const ref = columns.length === 1 ? stateOf(from.row[columns[0]!]) : undefined
  if (ref !== undefined) return ref.table === target ? ref : undefined
  const wanted = canonicalText(from.table, columns, from.row)
  if (wanted === null) return undefined
  if (sameColumns(targetColumns, target.primaryKey)) {
    const s = uow.get(target.key, canonicalAsKey(target, targetColumns, from, columns))
    return s?.status === 'managed' ? s : undefined
  }
  return uow.referring(target, targetColumns).firstWithText(wanted)
}

/**
 * The identity-map key of `target` from `from`'s `columns` matched to `targetColumns` (its key): each
 * value read as its own column's type (a `bigint` column referencing an `int` key), which gives the
 * form the key's value has.
 */
function canonicalAsKey(
  target: TableModel,
  targetColumns: readonly string[],
  from: EntityState,
  columns: readonly string[],
): string {
  const table = from.table
  if (columns.length === 1)
    return normalizeKeyValue(from.row[columns[0]!], table.columnsByName.get(columns[0]!)!, keyLocation(table))
  const parts = target.primaryKey.map((k) => {
    const c = columns[targetColumns.indexOf(k)]!
    return normalizeKeyValue(from.row[c], table.columnsByName.get(c)!, keyLocation(table))
  })
  return parts.length === 1 ? parts[0]! : JSON.stringify(parts)
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((c) => b.includes(c))
}
