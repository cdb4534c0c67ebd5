import { errors } from '../errors.ts'
import { describeValue } from '../values/location.ts'
import type { Where } from './select-sql.ts'

/** The direction of an ordering column. */
export type Direction = 'asc' | 'desc'

/** How a level of a graph load is ordered: `{ created_at: 'desc' }`, or several as an array of such. */
export type OrderBy = Readonly<Record<string, Direction>> | readonly Readonly<Record<string, Direction>>[]

/** What a level of a `with` tree may say besides its relations (keys starting with `$`). */
export interface WithOptions {
  /** Only the related rows with these values (as `find`'s conditions: a value, a list, null). */
  readonly $where?: Where | undefined
  /** The related rows in this order (their primary key breaks ties); navigation follows it. */
  readonly $orderBy?: OrderBy | undefined
  /** At most this many related rows per parent (one-to-many and one-to-one only). */
  readonly $limit?: number | undefined
  /** Relations of this level's rows to count per row, without reading them (`em.countOf`). */
  readonly $count?: readonly string[] | undefined
}

/**
 * Which relations to load with some rows, and theirs, to any depth, with what to load of each:
 * `{ books: { reviews: true, tags: true, publisher: true } }`,
 * `{ comments: { $orderBy: { created_at: 'desc' }, author: true }, favorites: { $where: { user_id: 7 } }, $count: ['favorites'] }`.
 * A key starting with `$` is an option of its level (see {@link WithOptions}); any other is a relation.
 */
export type With = WithOptions & {
  readonly [relation: string]: true | With | Where | OrderBy | number | readonly string[] | undefined
}

/** A level of a `with` tree, read and checked: its relations and options. */
export interface WithNode {
  readonly relations: readonly (readonly [name: string, node: WithNode])[]
  readonly where: Where | undefined
  /** Columns and directions, in order of priority. */
  readonly orderBy: readonly (readonly [column: string, direction: Direction])[]
  readonly limit: number | undefined
  readonly count: readonly string[]
  /**
   * A text that tells the SQL shape of this level apart from every other's: its relations in order,
   * its options' columns, directions and limits, and for `$where` each column and whether its value
   * is null or a list (the values themselves are parameters, not part of the shape).
   */
  readonly shape: string
}

const EMPTY: WithNode = {
  relations: [],
  where: undefined,
  orderBy: [],
  limit: undefined,
  count: [],
  shape: '{}',
}

/**
 * `tree` read into levels, every option checked for its form (`INVALID_VALUE`, naming its path,
 * before anything is sent); relation and column names are checked against the schema later, where
 * the tables are known.
 *
 * @example
 * parseWith({ comments: { $orderBy: { created_at: 'desc' } } }, 'with').relations[0] // ['comments', { orderBy: [['created_at', 'desc']], ... }]
 */
export function parseWith(tree: unknown, path: string): WithNode {
  if (tree === true) return EMPTY
  if (typeof tree !== 'object' || tree === null || Array.isArray(tree))
    throw errors.invalidWith(path, describeValue(tree))
  const relations: (readonly [string, WithNode])[] = []
  let where: Where | undefined
  let orderBy: (readonly [string, Direction])[] = []
  let limit: number | undefined
  let count: readonly string[] = []
  // Read once per load: its own keys walked without an array of entries, each level's shape written
  // as it is read (see `WithNode.shape`), a key's path made only for a relation or an error.
  let shape = '{'
  const level = tree as Readonly<Record<string, unknown>>
  for (const key in level) {
    if (!Object.hasOwn(level, key)) continue
    const value = level[key]
    if (!key.startsWith('$')) {
      const below = parseWith(value, `${path}.${key}`)
      relations.push([key, below])
      shape += `${JSON.stringify(key)}:${below.shape},`
      continue
    }
    if (value === undefined) continue
    if (key === '$where') where = whereOption(value, `${path}.${key}`)
    else if (key === '$orderBy') orderBy = orderOption(value, `${path}.${key}`)
    else if (key === '$limit') limit = limitOption(value, `${path}.${key}`)
    else if (key === '$count') count = countOption(value, `${path}.${key}`)
    else
      throw errors.invalidWithOption(
        `${path}.${key}`,
        'not an option of a `with` level ($where, $orderBy, $limit, $count)',
      )
  }
  if (where !== undefined) {
    shape += 'w:'
    for (const column in where) {
      if (!Object.hasOwn(where, column)) continue
      const value = where[column]
      shape += `${JSON.stringify(column)}${value === null ? 'n' : Array.isArray(value) ? listShape(value) : 'v'},`
    }
  }
  if (orderBy.length > 0) shape += `o:${JSON.stringify(orderBy)},`
  if (limit !== undefined) shape += `l:${limit},`
  if (count.length > 0) shape += `c:${JSON.stringify(count)},`
  return { relations, where, orderBy, limit, count, shape: `${shape}}` }
}

/**
 * A list's part of a `$where` shape: its text depends on whether it holds nulls, and only nulls
 * (`is null`, no parameter), as well as on the column (one array value, or any of a list).
 */
function listShape(list: readonly unknown[]): string {
  let nulls = 0
  for (const v of list) if (v === null) nulls++
  return nulls === 0 ? 'l' : nulls === list.length ? 'lN' : 'lU'
}

/** A `$where` object; one without columns (`{}`, as options built from optional filters give) filters nothing. */
function whereOption(value: unknown, at: string): Where | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw errors.invalidWithOption(at, `must be an object of column values, not ${describeValue(value)}`)
  for (const column in value) if (Object.hasOwn(value, column)) return value as Where
  return undefined
}

function orderOption(value: unknown, at: string): (readonly [string, Direction])[] {
  const parts = Array.isArray(value) ? value : [value]
  const out: (readonly [string, Direction])[] = []
  for (const part of parts) {
    if (typeof part !== 'object' || part === null || Array.isArray(part))
      throw errors.invalidWithOption(
        at,
        `must be { column: 'asc' | 'desc' } or an array of such, not ${describeValue(part)}`,
      )
    for (const [column, direction] of Object.entries(part)) {
      if (direction !== 'asc' && direction !== 'desc')
        throw errors.invalidWithOption(
          `${at}.${column}`,
          `must be 'asc' or 'desc', not ${describeValue(direction)}`,
        )
      out.push([column, direction])
    }
  }
  return out
}

function limitOption(value: unknown, at: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw errors.invalidWithOption(at, `must be a whole number of rows, not ${describeValue(value)}`)
  return value
}

function countOption(value: unknown, at: string): readonly string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    throw errors.invalidWithOption(at, `must be an array of relation names, not ${describeValue(value)}`)
  return value as string[]
}
