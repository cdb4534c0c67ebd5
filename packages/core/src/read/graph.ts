import type { Param } from '../drivers/driver.ts'
import { errors } from '../errors.ts'
import type { SchemaModel, TableModel } from '../model/model.ts'
import { columnSql } from '../schema/column-sql.ts'
import { type RelationModel, relationsOf } from '../schema/relations.ts'
import { castText } from '../values/index.ts'
import type { ReadStatement } from './read-statement.ts'
import { selectList, textParams, type Where, whereParamCount, whereSql } from './select-sql.ts'
import { type Direction, parseWith, type WithNode } from './with-tree.ts'

export type { Direction, OrderBy, With, WithOptions } from './with-tree.ts'

/** One select of a graph load: the rows of `table` at one level of the tree, or counts per row. */
export interface GraphLevel {
  readonly table: TableModel
  readonly statement: ReadStatement
  /** The level these rows were selected through; undefined for the roots. */
  readonly parent: number | undefined
  /** The relation from the parent level; undefined for the roots. */
  readonly relation: RelationModel | undefined
  /**
   * `links`: the rows of a many-to-many's link table (the next level holds its targets); `counts`:
   * per row of the parent level, how many rows `relation` relates to it (`k0...`: the counted rows'
   * columns that reference it, `n`: the count).
   */
  readonly role: 'roots' | 'related' | 'links' | 'counts'
  /**
   * The earlier level whose select gives these very rows (the same table through the same columns of
   * the same parent rows, neither filtered nor limited: a link table's one-to-many beside a
   * many-to-many through it), in the order this level needs (its `$orderBy`'s, when it has one): this
   * level's own select is not sent.
   */
  readonly rowsOf?: number | undefined
  /** Its rows come in the order the application asked for (`$orderBy`): navigation follows it. */
  readonly ordered?: boolean | undefined
}

/**
 * Where a graph load's roots come from:
 * - a condition on the table aliased `t0` (`where`, with its `params` `$1`...), optionally ordered
 *   (`orderBy`, an `order by` list on `t0`), limited and offset: `find`, `load`, `populate`;
 * - the application's own select (`statement`: every column of the table as text, aliased `c0, c1...`
 *   in table order, with its WHERE, ORDER BY, LIMIT...): `loadRows`, and Kysely queries.
 */
export type GraphRoot =
  | {
      readonly where: string
      readonly params: readonly Param[]
      readonly orderBy?: string | undefined
      readonly limit?: number | undefined
      readonly offset?: number | undefined
    }
  | { readonly statement: ReadStatement }

/** Resolves the values of a `$where` on `table` (entities given as values, to their keys). */
export type ResolveWhere = (table: TableModel, where: Where) => Where

/**
 * The selects of a graph load: the roots (see {@link GraphRoot}), then each relation of `tree`
 * selected through its parent's rows by subquery: `... where (child's columns) in (select parent's
 * columns from <the parent's select>)`, so the whole tree is one message whatever its depth, and
 * every select carries the roots' parameters (then its own `$where`'s). A many-to-many is two selects:
 * the link rows, and the targets through them; rows a level selects that an earlier one selects
 * already (the link rows of a many-to-many beside the link table's one-to-many, neither with `$where`
 * or `$limit`, and in the same order when the later one has a `$orderBy`) are not selected twice
 * (`rowsOf`). A level may be filtered (`$where`), ordered (`$orderBy`; else by primary key) and
 * limited per parent row (`$limit`, by `row_number()` over the parent's rows), and count relations of
 * its rows (`$count`: one `group by` select per relation, no rows read). Each select lists every
 * column as text (`c0, c1...`). Unknown relations are `UNKNOWN_RELATION`, bad options
 * `INVALID_VALUE`, before anything is sent.
 *
 * @example
 * graphLevels(schema, article, { where: 't0."slug" = $1::text', params: ['hello'] }, {
 *   comments: { $orderBy: { created_at: 'desc' }, author: true },
 *   $count: ['favorites'],
 * }) // article, comment, app_user (through the comments), the favorites count per article
 */
export function graphLevels(
  schema: SchemaModel,
  table: TableModel,
  root: GraphRoot,
  tree: unknown,
  resolveWhere: ResolveWhere = (_table, where) => where,
): GraphLevel[] {
  const node = parseWith(tree, 'with')
  const rootParams =
    'statement' in root ? root.statement.params : root.offset === undefined ? root.params : withOffset(root)
  let shapes = schemaShapes.get(schema)
  if (shapes === undefined) {
    shapes = new Map()
    schemaShapes.set(schema, shapes)
  }
  const key = `${table.key}\u0000${rootKey(root)}\u0000${node.shape}`
  let shape = shapes.get(key)
  if (shape === undefined) {
    shape = buildShape(schema, table, root, node, rootParams.length, resolveWhere)
    if (shapes.size >= MAX_SHAPES) shapes.clear()
    shapes.set(key, shape)
  }
  const values = whereValues(node, shape.whereTables, resolveWhere)
  // Written out, not spreads of the shape's levels: once per level of every load.
  const levels = shape.levels
  const out: GraphLevel[] = new Array(levels.length)
  for (let i = 0; i < levels.length; i++) {
    const { level, uses } = levels[i]!
    const s = level.statement
    out[i] = {
      table: level.table,
      parent: level.parent,
      relation: level.relation,
      role: level.role,
      rowsOf: level.rowsOf,
      ordered: level.ordered,
      statement: {
        text: s.text,
        table: s.table,
        locking: s.locking,
        params: uses.length === 0 ? rootParams : [...rootParams, ...uses.map((u) => values[u] ?? null)],
      },
    }
  }
  return out
}

/** A level as a shape has it: its text numbered for the roots' parameters, then `uses` (global indexes of `$where` values). */
interface ShapeLevel {
  readonly level: GraphLevel
  readonly uses: readonly number[]
}

interface Shape {
  readonly levels: readonly ShapeLevel[]
  /** The target table of each `$where`, in the order of the tree's walk (see {@link whereValues}). */
  readonly whereTables: readonly TableModel[]
}

/**
 * The levels of each (root table, root, tree shape) met, per schema, their statements' texts made
 * once: a request's graph loads repeat a few shapes, and the same text objects are then named and
 * looked up without hashing a new string each time.
 */
const schemaShapes = new WeakMap<SchemaModel, Map<string, Shape>>()
const MAX_SHAPES = 1_000

/**
 * A shape's roots, as one text: their select or their condition, order and limit, and whether they
 * are offset (an offset is a parameter, whatever its value: see {@link withOffset}).
 */
function rootKey(root: GraphRoot): string {
  if ('statement' in root) return `s\u0000${root.statement.text}`
  return `w\u0000${root.where}\u0000${root.orderBy ?? ''}\u0000${root.limit ?? ''}\u0000${root.offset === undefined ? '' : 'o'}`
}

/**
 * The roots' parameters, their offset last: a page's offset is a parameter, not part of the text, so
 * that every page of a paginated read sends one text (on node-postgres, one statement prepared per
 * connection, not one per page ever read, each kept by the server until the connection ends). The
 * limit stays in the text: a page's size is one of few, and the planner sees it.
 */
function withOffset(root: { readonly params: readonly Param[]; readonly offset?: number | undefined }) {
  return [...root.params, String(root.offset)]
}

/** A `$where` value's place in a level's text until the level is numbered: NUL never occurs in SQL text. */
const MARK = String.fromCharCode(0)
const token = (i: number) => `${MARK}${i}${MARK}`
const TOKEN = new RegExp(`${MARK}(\\d+)${MARK}`, 'g')

/** The alias of the column `pf_rank` a `$limit` numbers its rows in. */
const RANK = '"pf_rank"'

function buildShape(
  schema: SchemaModel,
  table: TableModel,
  root: GraphRoot,
  node: WithNode,
  rootParams: number,
  resolveWhere: ResolveWhere,
): Shape {
  const levels: GraphLevel[] = []
  const whereTables: TableModel[] = []
  let aliases = 0
  const alias = () => `t${aliases++}`
  const select = (t: TableModel, a: string, from: string, order: string): ReadStatement => ({
    text: `select ${selectList(t, a)} from ${from}${order}`,
    params: [],
    table: t.key,
  })
  const rootAlias = alias()
  if (node.where !== undefined || node.orderBy.length > 0 || node.limit !== undefined)
    throw errors.invalidWithOption(
      'with',
      '$where, $orderBy and $limit apply to relations; the roots are chosen by the read itself',
    )
  // The select of the parent keys of a level's rows: `(select columns from <the level's rows>)`.
  let rootKeys: (columns: readonly string[]) => string
  if ('statement' in root) {
    const text = root.statement.text
    levels.push({
      table,
      statement: { text, params: [], table: table.key },
      parent: undefined,
      relation: undefined,
      role: 'roots',
    })
    // The application's select gives every column as text `cN`: cast back to compare with keys.
    rootKeys = (columns) =>
      `select ${columns.map((c) => castText(`r.c${table.columns.findIndex((m) => m.name === c)}`, table.columnsByName.get(c)!)).join(', ')} from (${text}) as r`
  } else {
    const from = `${table.sqlName} as ${rootAlias}${root.where ? ` where ${root.where}` : ''}`
    const order = root.orderBy === undefined ? pkOrder(table, rootAlias) : ` order by ${root.orderBy}`
    // The offset: the roots' last parameter (see `withOffset`).
    const offset = root.offset === undefined ? '' : ` offset $${root.params.length + 1}::int8`
    const window = `${root.limit === undefined ? '' : ` limit ${root.limit}`}${offset}`
    levels.push({
      table,
      statement: select(table, rootAlias, `${from}`, `${order}${window}`),
      parent: undefined,
      relation: undefined,
      role: 'roots',
    })
    rootKeys = (columns) => {
      const list = columns.map((c) => `${rootAlias}.${columnSql(table, c)}`).join(', ')
      return window === '' ? `select ${list} from ${from}` : `select ${list} from ${from}${order}${window}`
    }
  }
  // The levels selecting (table, its columns) in (parent level's columns) unfiltered, for rows
  // selected twice, each with the order it gives them in ('' for its primary key's). `order`: the
  // order this level must give them in (an asked `$orderBy`, whose ranks navigation follows), or
  // undefined when any will do (a many-to-many's links, a relation without `$orderBy`). A level whose
  // order no earlier one gives has its own select.
  const selected = new Map<string, { readonly level: number; readonly order: string }[]>()
  const once = (
    at: number,
    of: TableModel,
    columns: readonly string[],
    parentColumns: readonly string[],
    order: string | undefined,
  ) => {
    const key = `${at}\u0000${of.key}\u0000${columns.join('\u0000')}\u0000${parentColumns.join('\u0000')}`
    let earlier = selected.get(key)
    if (earlier === undefined) {
      earlier = []
      selected.set(key, earlier)
    }
    const same = earlier.find((e) => order === undefined || e.order === order)
    if (same !== undefined) return { rowsOf: same.level }
    earlier.push({ level: levels.length, order: order ?? '' })
    return {}
  }
  // `$where` values are numbered in the order of this walk, as `whereValues` collects them.
  let values = 0
  const conditionOn = (target: TableModel, where: Where | undefined) => {
    if (where === undefined) return undefined
    const first = values
    whereTables.push(target)
    // Entities stand for their keys (the text depends on the values' kinds only: null, one, a list,
    // with nulls or only nulls).
    const resolved = resolveWhere(target, where)
    values += whereParamCount(target, resolved)
    return (a: string) => whereSql(target, resolved, a, (n) => token(first + n - 1), 'a $where condition').sql
  }
  const counts = (
    at: number,
    t: TableModel,
    keysOf: (columns: readonly string[]) => string,
    count: readonly string[],
    path: string,
  ) => {
    const relations = relationsOf(schema, t.key)
    for (const name of count) {
      const relation = relations.get(name)
      if (relation === undefined) throw errors.unknownRelation(t.key, name, [...relations.keys()])
      if (relation.kind === 'many-to-one')
        throw errors.invalidWithOption(
          `${path}.$count`,
          `${name} is a many-to-one: one row or none, nothing to count`,
        )
      const counted = schema.tables.get(relation.through?.table ?? relation.target)!
      const columns = relation.through?.columns ?? relation.targetColumns
      const x = alias()
      const keys = columns.map((c, i) => `${x}.${columnSql(counted, c)}::text as k${i}`).join(', ')
      const group = columns.map((c) => `${x}.${columnSql(counted, c)}`).join(', ')
      levels.push({
        table: counted,
        statement: {
          text: `select ${keys}, count(*)::text as n from ${counted.sqlName} as ${x} where ${tuple(counted, x, columns)} in (${keysOf(relation.columns)}) group by ${group}`,
          params: [],
          table: counted.key,
        },
        parent: at,
        relation,
        role: 'counts',
      })
    }
  }
  const walk = (
    at: number,
    t: TableModel,
    keysOf: (columns: readonly string[]) => string,
    subtree: WithNode,
    path: string,
  ) => {
    const relations = relationsOf(schema, t.key)
    counts(at, t, keysOf, subtree.count, path)
    for (const [name, below] of subtree.relations) {
      const relation = relations.get(name)
      if (relation === undefined) throw errors.unknownRelation(t.key, name, [...relations.keys()])
      const at2 = `${path}.${name}`
      const target = schema.tables.get(relation.target)!
      const condition = conditionOn(target, below.where)
      const filtered = condition !== undefined || below.limit !== undefined
      const ta = alias()
      const order = below.orderBy.length > 0 ? orderList(target, ta, below.orderBy, at2) : pkOrder(target, ta)
      let targetFrom: string
      if (relation.through === undefined) {
        const parents = keysOf(relation.columns)
        if (below.limit === undefined) {
          targetFrom = `${target.sqlName} as ${ta} where ${tuple(target, ta, relation.targetColumns)} in (${parents})${condition === undefined ? '' : ` and ${condition(ta)}`}`
        } else {
          if (relation.kind === 'many-to-one')
            throw errors.invalidWithOption(`${at2}.$limit`, `${name} is a many-to-one: one row or none`)
          const ia = alias()
          const rank = `row_number() over (partition by ${relation.targetColumns.map((c) => `${ia}.${columnSql(target, c)}`).join(', ')}${rankOrder(target, ia, below.orderBy, at2)}) as ${RANK}`
          targetFrom = `(select ${ia}.*, ${rank} from ${target.sqlName} as ${ia} where ${tuple(target, ia, relation.targetColumns)} in (${parents})${condition === undefined ? '' : ` and ${condition(ia)}`}) as ${ta} where ${ta}.${RANK} <= ${below.limit}`
        }
      } else {
        if (below.limit !== undefined)
          throw errors.invalidWithOption(
            `${at2}.$limit`,
            `${name} is a many-to-many: limit its link table's one-to-many instead`,
          )
        const link = schema.tables.get(relation.through.table)!
        const la = alias()
        // A link row counts only when its target is one the level reads.
        const matching = (a: string) => {
          if (condition === undefined) return ''
          const x = alias()
          return ` and ${tuple(link, a, relation.through!.targetColumns)} in (select ${relation.targetColumns.map((c) => `${x}.${columnSql(target, c)}`).join(', ')} from ${target.sqlName} as ${x} where ${condition(x)})`
        }
        const linkFrom = `${link.sqlName} as ${la} where ${tuple(link, la, relation.through.columns)} in (${keysOf(relation.columns)})${matching(la)}`
        levels.push({
          table: link,
          statement: select(link, la, linkFrom, pkOrder(link, la)),
          parent: at,
          relation,
          role: 'links',
          ...(filtered ? {} : once(at, link, relation.through.columns, relation.columns, undefined)),
        })
        const la2 = alias()
        const linked = `select ${relation.through.targetColumns.map((c) => `${la2}.${columnSql(link, c)}`).join(', ')} from ${link.sqlName} as ${la2} where ${tuple(link, la2, relation.through.columns)} in (${keysOf(relation.columns)})`
        targetFrom = `${target.sqlName} as ${ta} where ${tuple(target, ta, relation.targetColumns)} in (${linked})${condition === undefined ? '' : ` and ${condition(ta)}`}`
      }
      levels.push({
        table: target,
        statement: select(target, ta, targetFrom, order),
        parent: at,
        relation,
        role: 'related',
        ...(below.orderBy.length > 0 ? { ordered: true } : {}),
        ...(relation.through === undefined && !filtered
          ? once(
              at,
              target,
              relation.targetColumns,
              relation.columns,
              below.orderBy.length > 0 ? JSON.stringify(below.orderBy) : undefined,
            )
          : {}),
      })
      const from = targetFrom
      walk(
        levels.length - 1,
        target,
        (columns) => `select ${columns.map((c) => `${ta}.${columnSql(target, c)}`).join(', ')} from ${from}`,
        below,
        at2,
      )
    }
  }
  walk(0, table, rootKeys, node, 'with')
  return { levels: levels.map((level) => numbered(level, rootParams)), whereTables }
}

/** `level` with its `$where` tokens numbered after the roots' `rootParams` parameters, in order of first use. */
function numbered(level: GraphLevel, rootParams: number): ShapeLevel {
  const uses: number[] = []
  const text = level.statement.text.replace(TOKEN, (_, i: string) => {
    const global = Number(i)
    let local = uses.indexOf(global)
    if (local < 0) local = uses.push(global) - 1
    return `$${rootParams + local + 1}`
  })
  return { level: { ...level, statement: { ...level.statement, text } }, uses }
}

/**
 * The values of every `$where` of `node`, as text parameters, in the order `buildShape` numbered
 * them (the walk's: each relation's `$where`, then its relations', depth first), each encoded for
 * its column of `tables` (the targets, in the same order).
 */
function whereValues(node: WithNode, tables: readonly TableModel[], resolve: ResolveWhere): Param[] {
  if (tables.length === 0) return []
  const out: Param[] = []
  let next = 0
  const visit = (n: WithNode) => {
    for (const [, below] of n.relations) {
      if (below.where !== undefined) {
        const table = tables[next++]!
        const { params } = whereSql(table, resolve(table, below.where), 'x', undefined, 'a $where condition')
        out.push(...textParams(params))
      }
      visit(below)
    }
  }
  visit(node)
  return out
}

/** ` order by` the table's primary key (nothing for a table without one). */
function pkOrder(table: TableModel, alias: string): string {
  const order = table.primaryKey.map((k) => `${alias}.${columnSql(table, k)}`).join(', ')
  return order ? ` order by ${order}` : ''
}

/** ` order by` the asked columns, then the primary key's not among them (ties broken the same every time). */
function orderList(
  table: TableModel,
  alias: string,
  orderBy: readonly (readonly [string, Direction])[],
  path: string,
): string {
  return ` order by ${orderTerms(table, alias, orderBy, path).join(', ')}`
}

function rankOrder(
  table: TableModel,
  alias: string,
  orderBy: readonly (readonly [string, Direction])[],
  path: string,
): string {
  const terms = orderTerms(table, alias, orderBy, path)
  return terms.length === 0 ? '' : ` order by ${terms.join(', ')}`
}

function orderTerms(
  table: TableModel,
  alias: string,
  orderBy: readonly (readonly [string, Direction])[],
  path: string,
): string[] {
  const terms: string[] = []
  for (const [column, direction] of orderBy) {
    if (!table.columnsByName.has(column))
      throw errors.invalidWithOption(`${path}.$orderBy.${column}`, `${table.key} has no column ${column}`)
    terms.push(`${alias}.${columnSql(table, column)}${direction === 'desc' ? ' desc' : ''}`)
  }
  for (const k of table.primaryKey)
    if (!orderBy.some(([c]) => c === k)) terms.push(`${alias}.${columnSql(table, k)}`)
  return terms
}

/** `(a."x", a."y")`: the columns of `table` aliased `a` as a row, to compare with `in (select ...)`. */
function tuple(table: TableModel, a: string, columns: readonly string[]): string {
  return `(${columns.map((c) => `${a}.${columnSql(table, c)}`).join(', ')})`
}
