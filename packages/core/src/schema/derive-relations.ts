import type { SchemaModel, TableModel } from '../model/model.ts'
import { isOneToOne, linkKeys } from './key-shapes.ts'
import { type NameWish, pickNames } from './pick-names.ts'
import { inverseNames, manyToManyNames, manyToOneNames, roleOf } from './relation-candidates.ts'
import type { RelationModel } from './relation-model.ts'

type Unnamed = Omit<RelationModel, 'name'>

/**
 * Every table's relations, named (see `relationsOf`): each foreign key gives its table a
 * many-to-one and the table it references a one-to-many (or a one-to-one when the key is its table's
 * primary key or a unique constraint); each link table gives both sides a many-to-many. The names
 * each relation may take come from its columns and tables alone (`relation-candidates.ts`), and
 * {@link pickNames} chooses among them without regard to order: the same schema read in any order of
 * tables and keys gives the same names.
 *
 * @example
 * deriveRelations(schema).get('thread')?.get('thread_stat')?.kind // 'one-to-one'
 */
export function deriveRelations(schema: SchemaModel): Map<string, Map<string, RelationModel>> {
  const wishes = new Map<string, { relation: Unnamed; wish: NameWish }[]>()
  const add = (relation: Unnamed, derived: readonly string[], identity: string) => {
    // Named as the application names the catalog's names (`blog_posts` as `blogPosts`), where it does.
    const names = schema.names
    const candidates = names === undefined ? derived : [...new Set(derived.map(names))]
    let list = wishes.get(relation.table)
    if (list === undefined) {
      list = []
      wishes.set(relation.table, list)
    }
    list.push({ relation, wish: { candidates, identity } })
  }
  for (const table of schema.tables.values()) {
    for (const fk of table.foreignKeys) {
      const target = schema.tables.get(fk.target)
      if (target === undefined) continue
      const several = keysTo(table, fk.target) > 1
      const id = `${table.key}\u0000${fk.name}`
      add(
        {
          kind: 'many-to-one',
          table: table.key,
          target: target.key,
          columns: fk.columns,
          targetColumns: fk.targetColumns,
          foreignKey: fk.name,
        },
        manyToOneNames(fk, target, several),
        `1\u0000${id}`,
      )
      const oneToOne = isOneToOne(table, fk)
      add(
        {
          kind: oneToOne ? 'one-to-one' : 'one-to-many',
          table: target.key,
          target: table.key,
          columns: fk.targetColumns,
          targetColumns: fk.columns,
          foreignKey: fk.name,
        },
        inverseNames(table, fk, target, several, oneToOne, roleOf(fk, target, several)),
        `2\u0000${id}`,
      )
    }
  }
  const links = [...schema.tables.values()].flatMap((link) => {
    const pair = linkKeys(link)
    return pair === undefined ? [] : [{ link, pair }]
  })
  const linksBetween = countBy(links.map(({ pair: [a, b] }) => [a.target, b.target].sort().join('\u0000')))
  for (const { link, pair } of links) {
    const [a, b] = pair
    const ambiguous =
      a.target === b.target || linksBetween.get([a.target, b.target].sort().join('\u0000'))! > 1
    for (const [from, to] of [pair, [b, a] as const]) {
      const owner = schema.tables.get(from.target)
      const target = schema.tables.get(to.target)
      if (owner === undefined || target === undefined) continue
      add(
        {
          kind: 'many-to-many',
          table: owner.key,
          target: target.key,
          columns: from.targetColumns,
          targetColumns: to.targetColumns,
          foreignKey: to.name,
          through: { table: link.key, columns: from.columns, targetColumns: to.columns },
        },
        manyToManyNames(link, roleOf(to, target, keysTo(link, to.target) > 1), target, ambiguous),
        `3\u0000${link.key}\u0000${from.name}\u0000${to.name}`,
      )
    }
  }
  const out = new Map<string, Map<string, RelationModel>>()
  for (const [key, list] of wishes) {
    const owner = schema.tables.get(key) as TableModel
    const names = pickNames(
      list.map((w) => w.wish),
      new Set([...owner.columnsByName.keys(), ...NEVER_RELATION_NAMES]),
    )
    out.set(key, byName(list.map((w, i) => ({ ...w.relation, name: names[i]! }))))
  }
  return out
}

/**
 * Names no relation takes: `then`, which `await` reads on whatever a read resolves to (an entity
 * whose relation `then` is not loaded would refuse it, and the read with it).
 */
export const NEVER_RELATION_NAMES: readonly string[] = ['then']

/** Relations by name, in the order of their names (by code unit: the same on every machine). */
export function byName(relations: readonly RelationModel[]): Map<string, RelationModel> {
  const sorted = [...relations].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return new Map(sorted.map((r) => [r.name, r]))
}

/** How many foreign keys of `table` reference `target`. */
function keysTo(table: TableModel, target: string): number {
  return table.foreignKeys.filter((fk) => fk.target === target).length
}

function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1)
  return counts
}
