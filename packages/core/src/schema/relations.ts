import { errors } from '../errors.ts'
import type { SchemaModel } from '../model/model.ts'
import { describeValue } from '../values/location.ts'
import { byName, deriveRelations, NEVER_RELATION_NAMES } from './derive-relations.ts'
import type { RelationModel } from './relation-model.ts'

export type { RelationModel } from './relation-model.ts'

/**
 * New names for derived relations: `{ 'author.books': 'works' }` renames author's relation `books`
 * (the key: the table's key, a dot, the name {@link relationsOf} derives).
 */
export type RelationNames = Readonly<Record<string, string>>

const cache = new WeakMap<SchemaModel, ReadonlyMap<string, ReadonlyMap<string, RelationModel>>>()

/**
 * The relations of `table` by name (in the order of their names), derived from the schema's foreign
 * keys once per schema, the same whatever order the tables and keys come in (see `derive-relations.ts`
 * for the rules and docs/reads.md, Relation names, for each with its example):
 * - a foreign key gives its table a many-to-one named after its column without `_id`/`Id`
 *   (`reply_to_id`: `reply_to`, `"threadId"`: `thread`);
 * - and the table it references a one-to-many named after the referencing table in the plural
 *   (`thread.posts`, a plural kept: `board.people`), or a one-to-one named after it as it is when its
 *   primary key or a unique constraint is the foreign key (`thread.thread_stat`); named
 *   `<that>_by_<column stem>` when the table references itself or references the target by several
 *   keys (`post.posts_by_reply_to`, `person.messages_by_sender`);
 * - a table whose primary key is exactly the columns of two foreign keys is a link: each side gets a
 *   many-to-many named after the other side in the plural (`book.tags`), or after the far link
 *   column in the plural when the link joins a table to itself or several links join the two
 *   (`people.followers`, `people.followees` through `follow(follower_id, followee_id)`).
 * A name that is a column of the table, or that two relations of the table would take, goes to none:
 * each takes its next. `schema.relationNames` (the `relationNames` option of `readSchema` and
 * `defineSchema`) renames any.
 *
 * @example
 * relationsOf(schema, 'author').get('books') // { kind: 'one-to-many', target: 'book', ... }
 */
export function relationsOf(schema: SchemaModel, table: string): ReadonlyMap<string, RelationModel> {
  let all = cache.get(schema)
  if (all === undefined) {
    all = renamed(deriveRelations(schema), schema.relationNames ?? {})
    cache.set(schema, all)
  }
  return all.get(table) ?? EMPTY
}

const EMPTY: ReadonlyMap<string, RelationModel> = new Map()

/** The relations with the names the application gave (see {@link RelationNames}), checked. */
function renamed(
  all: Map<string, Map<string, RelationModel>>,
  names: RelationNames,
): Map<string, Map<string, RelationModel>> {
  for (const [path, name] of Object.entries(names)) {
    const dot = path.lastIndexOf('.')
    const map = all.get(path.slice(0, dot))
    const relation = map?.get(path.slice(dot + 1))
    if (map === undefined || relation === undefined)
      throw errors.invalidConfig(`relationNames names "${path}", which is not a relation (table.relation).`)
    if (typeof name !== 'string' || name === '' || map.has(name))
      throw errors.invalidConfig(`relationNames["${path}"] must be a new name, not ${describeValue(name)}.`)
    if (NEVER_RELATION_NAMES.includes(name))
      throw errors.invalidConfig(
        `relationNames["${path}"] cannot be "${name}": await reads it on every entity a read resolves to.`,
      )
    if (name.startsWith('$'))
      throw errors.invalidConfig(
        `relationNames["${path}"] cannot be "${name}": a name starting with $ is an option of a with level ($where, $orderBy...).`,
      )
    map.delete(relation.name)
    map.set(name, { ...relation, name })
  }
  if (Object.keys(names).length === 0) return all
  return new Map([...all].map(([table, map]) => [table, byName([...map.values()])]))
}
