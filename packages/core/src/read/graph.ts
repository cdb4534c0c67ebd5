import type { Param } from '../drivers/driver.ts'
import { errors } from '../errors.ts'
import type { SchemaModel, TableModel } from '../schema/model.ts'
import { type RelationModel, relationsOf } from '../schema/relations.ts'
import { quoteIdentifier } from '../values/identifier.ts'
import { describeValue } from '../values/location.ts'
import type { ReadStatement } from './read-batch.ts'
import { orderBy, selectList } from './select-sql.ts'

/**
 * Which relations to load with some rows, and theirs, to any depth:
 * `{ books: { reviews: true, tags: true, publisher: true } }`.
 */
export type With = { readonly [relation: string]: true | With }

/** One select of a graph load: the rows of `table` at one level of the tree. */
export interface GraphLevel {
  readonly table: TableModel
  readonly statement: ReadStatement
  /** The level these rows were selected through; undefined for the roots. */
  readonly parent: number | undefined
  /** The relation from the parent level; undefined for the roots. */
  readonly relation: RelationModel | undefined
  /** `links`: the rows of a many-to-many's link table (the next level holds its targets). */
  readonly role: 'roots' | 'related' | 'links'
  /**
   * The earlier level whose select gives these very rows (the same table through the same columns of
   * the same parent rows: a link table's one-to-many beside a many-to-many through it): this level's
   * own select is not sent.
   */
  readonly rowsOf?: number
}

/**
 * The selects of a graph load: the roots (`table` where `where`, a condition on alias `t0` with
 * parameters `params`), then each relation of `tree` selected through its parent's rows by subquery:
 * `... where (child's columns) in (select parent's columns from <the parent's select>)`, so the whole
 * tree is one message whatever its depth, and every select carries the roots' parameters. A
 * many-to-many is two selects: the link rows, and the targets through them; rows a level selects
 * that an earlier one selects already (the link rows of a many-to-many beside the link table's
 * one-to-many) are not selected twice (`rowsOf`). Each select lists every column as text (`c0,
 * c1...`) and orders by primary key. Unknown relations are `UNKNOWN_RELATION`, before anything is
 * sent.
 */
export function graphLevels(
  schema: SchemaModel,
  table: TableModel,
  where: string,
  params: readonly Param[],
  tree: With,
): GraphLevel[] {
  const key = treeKey(tree)
  let shapes = schemaShapes.get(schema)
  if (shapes === undefined) {
    shapes = new Map()
    schemaShapes.set(schema, shapes)
  }
  const shapeKey = key === undefined ? undefined : `${table.key}\u0000${where}\u0000${key}`
  let levels = shapeKey === undefined ? undefined : shapes.get(shapeKey)
  if (levels === undefined) {
    levels = buildLevels(schema, table, where, tree)
    if (shapeKey !== undefined) {
      if (shapes.size >= MAX_SHAPES) shapes.clear()
      shapes.set(shapeKey, levels)
    }
  }
  return levels.map((l) => ({ ...l, statement: { ...l.statement, params } }))
}

/**
 * The levels of each (root table, condition, tree) met, per schema, their statements' texts made
 * once: a request's graph loads repeat a few shapes, and the same text objects are then named and
 * looked up without hashing a new string each time.
 */
const schemaShapes = new WeakMap<SchemaModel, Map<string, readonly GraphLevel[]>>()
const MAX_SHAPES = 1_000

/**
 * A text that tells `tree` apart from every other tree (its relations in order, `1` for `true`), or
 * undefined when a value is neither `true` nor an object (left to the walk, which rejects it).
 */
function treeKey(tree: With): string | undefined {
  if (typeof tree !== 'object' || tree === null || Array.isArray(tree)) return undefined
  let out = '{'
  for (const name in tree) {
    if (!Object.hasOwn(tree, name)) continue
    const below = tree[name]
    const part = below === true ? '1' : treeKey(below as With)
    if (part === undefined) return undefined
    out += `${JSON.stringify(name)}:${part},`
  }
  return `${out}}`
}

function buildLevels(schema: SchemaModel, table: TableModel, where: string, tree: With): GraphLevel[] {
  const params: readonly Param[] = []
  const levels: GraphLevel[] = []
  let aliases = 0
  const alias = () => `t${aliases++}`
  const select = (t: TableModel, a: string, from: string): ReadStatement => ({
    text: `select ${selectList(t, a)} from ${from}${orderBy(t, a)}`,
    params,
    table: t.key,
  })
  const rootAlias = alias()
  const rootFrom = `${table.sqlName} as ${rootAlias}${where ? ` where ${where}` : ''}`
  levels.push({
    table,
    statement: select(table, rootAlias, rootFrom),
    parent: undefined,
    relation: undefined,
    role: 'roots',
  })
  // The levels selecting (table, its columns) in (parent level's columns), for rows selected twice.
  const selected = new Map<string, number>()
  const once = (at: number, of: TableModel, columns: readonly string[], parentColumns: readonly string[]) => {
    const key = `${at}\u0000${of.key}\u0000${columns.join('\u0000')}\u0000${parentColumns.join('\u0000')}`
    const earlier = selected.get(key)
    if (earlier === undefined) selected.set(key, levels.length)
    return earlier === undefined ? {} : { rowsOf: earlier }
  }
  const walk = (at: number, t: TableModel, a: string, from: string, subtree: With, path: string) => {
    if (typeof subtree !== 'object' || subtree === null || Array.isArray(subtree))
      throw errors.invalidWith(path, describeValue(subtree))
    const relations = relationsOf(schema, t.key)
    for (const [name, below] of Object.entries(subtree)) {
      const relation = relations.get(name)
      if (relation === undefined) throw errors.unknownRelation(t.key, name, [...relations.keys()])
      if (below !== true && (typeof below !== 'object' || below === null))
        throw errors.invalidWith(`${path}.${name}`, describeValue(below))
      const parentKeys = (cols: readonly string[]) =>
        `select ${cols.map((c) => `${a}.${quoteIdentifier(c)}`).join(', ')} from ${from}`
      const target = schema.tables.get(relation.target)!
      const ta = alias()
      let targetFrom: string
      if (relation.through === undefined) {
        targetFrom = `${target.sqlName} as ${ta} where ${tuple(ta, relation.targetColumns)} in (${parentKeys(relation.columns)})`
      } else {
        const link = schema.tables.get(relation.through.table)!
        const la = alias()
        const linkFrom = `${link.sqlName} as ${la} where ${tuple(la, relation.through.columns)} in (${parentKeys(relation.columns)})`
        levels.push({
          table: link,
          statement: select(link, la, linkFrom),
          parent: at,
          relation,
          role: 'links',
          ...once(at, link, relation.through.columns, relation.columns),
        })
        const la2 = alias()
        const linked = `select ${relation.through.targetColumns.map((c) => `${la2}.${quoteIdentifier(c)}`).join(', ')} from ${link.sqlName} as ${la2} where ${tuple(la2, relation.through.columns)} in (${parentKeys(relation.columns)})`
        targetFrom = `${target.sqlName} as ${ta} where ${tuple(ta, relation.targetColumns)} in (${linked})`
      }
      levels.push({
        table: target,
        statement: select(target, ta, targetFrom),
        parent: at,
        relation,
        role: 'related',
        ...(relation.through === undefined ? once(at, target, relation.targetColumns, relation.columns) : {}),
      })
      if (below !== true) walk(levels.length - 1, target, ta, targetFrom, below, `${path}.${name}`)
    }
  }
  walk(0, table, rootAlias, rootFrom, tree, 'with')
  return levels
}

/** `(a."x", a."y")`: the columns of alias `a` as a row, to compare with `in (select ...)`. */
function tuple(a: string, columns: readonly string[]): string {
  return `(${columns.map((c) => `${a}.${quoteIdentifier(c)}`).join(', ')})`
}
