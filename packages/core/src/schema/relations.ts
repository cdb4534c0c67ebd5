import { errors } from '../errors.ts'
import { describeValue } from '../values/location.ts'
import type { ForeignKeyModel, SchemaModel, TableModel } from './model.ts'
import { plural } from './plural.ts'

/**
 * A relation between two tables, derived from a foreign key (see {@link relationsOf}):
 * - `many-to-one`: the table's foreign key `columns` reference `target`'s `targetColumns` (book ->
 *   author);
 * - `one-to-many`: its inverse, rows of `target` whose `targetColumns` reference the table's
 *   `columns` (author -> books);
 * - `many-to-many`: rows of `target` linked through a table whose primary key is two foreign keys
 *   (book <-> tag through book_tag): `through.columns` reference the table's `columns`,
 *   `through.targetColumns` reference `target`'s `targetColumns`.
 */
export interface RelationModel {
  readonly name: string
  readonly kind: 'many-to-one' | 'one-to-many' | 'many-to-many'
  /** The table the relation belongs to (its key). */
  readonly table: string
  /** The table of the related rows. */
  readonly target: string
  /** Columns of `table` the relation joins on. */
  readonly columns: readonly string[]
  /** Columns of `target` matched to {@link columns}, in order (many-to-many: `target`'s key). */
  readonly targetColumns: readonly string[]
  /** The foreign key it comes from (many-to-many: the link table's key to `target`). */
  readonly foreignKey: string
  readonly through?: {
    readonly table: string
    /** The link table's columns referencing `table`'s {@link columns}. */
    readonly columns: readonly string[]
    /** The link table's columns referencing `target`'s {@link targetColumns}. */
    readonly targetColumns: readonly string[]
  }
}

/**
 * New names for derived relations: `{ 'author.books': 'works' }` renames author's relation `books`
 * (the key: the table's key, a dot, the name {@link relationsOf} derives).
 */
export type RelationNames = Readonly<Record<string, string>>

const cache = new WeakMap<SchemaModel, ReadonlyMap<string, ReadonlyMap<string, RelationModel>>>()

/**
 * The relations of `table` by name, derived from the schema's foreign keys (made once per schema):
 * - a foreign key gives its table a many-to-one named after its column without `_id` (`author_id`:
 *   `author`), or the referenced table's name when that is not a column and no other foreign key of
 *   the table to it has it, else the foreign key's name;
 * - and the referenced table a one-to-many named after the referencing table, in the plural
 *   (`book`: `books`, `category`: `categories`), or `<plural>_by_<many-to-one name>` when two foreign
 *   keys of one table reference it (`message.sender_id`, `message.recipient_id`: `messages_by_sender`,
 *   `messages_by_recipient`);
 * - a table whose primary key is exactly the columns of two foreign keys is also a link: each side
 *   gets a many-to-many named after the other side in the plural (`book.tags`, `tag.books`),
 *   `<plural>_by_<link table>` when that name is taken.
 * A name that is a column of the table, or already taken, falls back to the foreign key's name.
 * `schema.relationNames` (the `relationNames` option of `readSchema` and `defineSchema`) renames any.
 *
 * @example
 * relationsOf(schema, 'author').get('books') // { kind: 'one-to-many', target: 'book', ... }
 */
export function relationsOf(schema: SchemaModel, table: string): ReadonlyMap<string, RelationModel> {
  let all = cache.get(schema)
  if (all === undefined) {
    all = deriveRelations(schema)
    cache.set(schema, all)
  }
  return all.get(table) ?? EMPTY
}

const EMPTY: ReadonlyMap<string, RelationModel> = new Map()

function deriveRelations(schema: SchemaModel): ReadonlyMap<string, ReadonlyMap<string, RelationModel>> {
  const out = new Map<string, Map<string, RelationModel>>()
  const add = (relation: Omit<RelationModel, 'name'>, preferred: readonly string[]) => {
    const owner = schema.tables.get(relation.table)!
    let map = out.get(owner.key)
    if (map === undefined) {
      map = new Map()
      out.set(owner.key, map)
    }
    const free = (n: string) => n !== '' && !owner.columnsByName.has(n) && !map.has(n)
    const name = preferred.find(free) ?? relation.foreignKey
    map.set(name, { ...relation, name })
  }
  // Many-to-one and one-to-many, foreign key by foreign key.
  for (const table of schema.tables.values()) {
    const toTarget = new Map<string, number>()
    for (const fk of table.foreignKeys) toTarget.set(fk.target, (toTarget.get(fk.target) ?? 0) + 1)
    for (const fk of table.foreignKeys) {
      const target = schema.tables.get(fk.target)
      if (target === undefined) continue
      const single = fk.columns.length === 1 ? fk.columns[0]! : undefined
      const stripped = single?.replace(/_id$/i, '').replace(/(.)Id$/, '$1')
      const one = oneName(table, fk, target, stripped, toTarget.get(fk.target)! > 1)
      add(
        {
          kind: 'many-to-one',
          table: table.key,
          target: target.key,
          columns: fk.columns,
          targetColumns: fk.targetColumns,
          foreignKey: fk.name,
        },
        [one],
      )
      const many = plural(table.name)
      add(
        {
          kind: 'one-to-many',
          table: target.key,
          target: table.key,
          columns: fk.targetColumns,
          targetColumns: fk.columns,
          foreignKey: fk.name,
        },
        toTarget.get(fk.target)! > 1 ? [`${many}_by_${one}`] : [many, `${many}_by_${one}`],
      )
    }
  }
  // Many-to-many through link tables.
  for (const link of schema.tables.values()) {
    const pair = linkKeys(link)
    if (pair === undefined) continue
    for (const [from, to] of [pair, [pair[1], pair[0]] as const]) {
      const owner = schema.tables.get(from.target)
      const target = schema.tables.get(to.target)
      if (owner === undefined || target === undefined) continue
      const many = plural(target.name)
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
        [many, `${many}_by_${link.name}`],
      )
    }
  }
  return renamed(out, schema.relationNames ?? {})
}

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
    map.delete(relation.name)
    map.set(name, { ...relation, name })
  }
  return all
}

/** The many-to-one name of `fk` when not given (see {@link relationsOf}). */
function oneName(
  table: TableModel,
  fk: ForeignKeyModel,
  target: TableModel,
  stripped: string | undefined,
  several: boolean,
): string {
  if (stripped !== undefined && stripped !== fk.columns[0] && !table.columnsByName.has(stripped))
    return stripped
  if (!several && !table.columnsByName.has(target.name)) return target.name
  return fk.name
}

/**
 * The two foreign keys of a link table: its primary key is exactly their columns (two distinct keys,
 * each over its own columns); undefined otherwise.
 */
function linkKeys(table: TableModel): readonly [ForeignKeyModel, ForeignKeyModel] | undefined {
  if (table.kind !== 'table' || table.foreignKeys.length < 2) return undefined
  const key = new Set(table.primaryKey)
  const inKey = table.foreignKeys.filter((fk) => fk.columns.every((c) => key.has(c)))
  if (inKey.length !== 2) return undefined
  const [a, b] = inKey as [ForeignKeyModel, ForeignKeyModel]
  const cols = new Set([...a.columns, ...b.columns])
  if (cols.size !== a.columns.length + b.columns.length || cols.size !== key.size) return undefined
  return [a, b]
}
