import { errors } from '../errors.ts'
import type { ColumnModel } from '../model/model.ts'

/**
 * Geometric types whose `=` is not equality: box and circle compare areas, polygon and point have no
 * `=`. Their `~=` ("same as") is: rows are found by it.
 */
const SAME_AS: ReadonlySet<string> = new Set(['point', 'box', 'circle', 'polygon'])

/**
 * Types no operator finds a value of: path's `=` compares numbers of points (`~=` it has not), json and
 * xml have no equality at all.
 */
const NO_EQUALITY: ReadonlySet<string> = new Set(['path', 'json', 'xml'])

/** The built-in type a column's values are cast to, unquoted (`box`, `path`), or undefined. */
function builtinName(column: ColumnModel): string | undefined {
  if (column.type === 'json') return 'json'
  if (column.type !== 'other') return undefined
  const cast = (column.castType ?? column.sqlType).replace(/\[\]$/, '').replace(/^"?pg_catalog"?\./, '')
  return cast.replace(/^"(.*)"$/, '$1')
}

/**
 * The operator a find condition on `column` compares with: `=`, or `~=` for point, box, circle and
 * polygon, whose `=` compares areas or does not exist (a condition `{ b: '(2,2),(0,0)' }` on a box
 * column would otherwise find every box of area 4). A column of a type no operator compares for
 * equality (path, json, xml; an array of any of these or of the geometric types above, whose arrays
 * have no `=`) is refused: `INVALID_VALUE` before anything is sent.
 *
 * @example
 * equalityOperator(boxColumn, 'shape', 'the find condition') // '~='
 * equalityOperator(pathColumn, 'shape', 'the find condition') // throws INVALID_VALUE
 */
export function equalityOperator(column: ColumnModel, table: string, what: string): '=' | '~=' {
  const name = builtinName(column)
  if (name === undefined) return '='
  const sameAs = SAME_AS.has(name)
  if (!sameAs && !NO_EQUALITY.has(name)) return '='
  if (sameAs && !column.isArray) return '~='
  const type = column.isArray ? `${name}[]` : name
  const why = sameAs
    ? `arrays of ${name} have no equality`
    : name === 'path'
      ? "path's = compares numbers of points, and path has no other equality"
      : `${name} has no equality`
  throw errors.invalidValue(
    `${table}.${column.name} (${what}): rows cannot be found by a ${type} value (${why}); filter the rows read instead.`,
    { table, column: column.name },
  )
}
