import type { TableModel } from '../model/model.ts'

/**
 * Rows are instances of a class whose prototype is an empty object without prototype: nothing is
 * inherited, so a column named `__proto__` (or `constructor`) is an ordinary own property, and unlike
 * `Object.create(null)` objects (which V8 keeps as hash tables) they stay fast-mode objects.
 */
const Row = function Row() {} as unknown as new () => Record<string, unknown>
Row.prototype = Object.create(null) as object

/**
 * An empty row: an object that inherits nothing, so that a column named `__proto__` (or
 * `constructor`) is an ordinary property. Entities still look like plain objects (see
 * `entity-proxy.ts`).
 */
export function emptyRow(): Record<string, unknown> {
  return new Row()
}

/**
 * An empty row of `table` (as {@link emptyRow}) for an entity (`row`) or a snapshot: the rows of each
 * table and use are made by a constructor of their own, so that V8 sizes them by what they hold and
 * keeps their values inside the object. (Rows of one constructor shared by every table get the size of
 * the first rows made, and larger rows an array of their values besides: a snapshot of 4 columns
 * after entity rows of 3 took 96 bytes instead of 56.)
 */
export function emptyRowOf(table: TableModel, use: 'row' | 'snapshot'): Record<string, unknown> {
  return new (rowMaker(table, use))()
}

/**
 * The constructor of {@link emptyRowOf}'s rows of `table` for `use`: for code that makes many rows of
 * one table (see `compiled-rows.ts`).
 */
export function rowMaker(table: TableModel, use: 'row' | 'snapshot'): new () => Record<string, unknown> {
  const constructors = use === 'row' ? ROW_OF_TABLE : SNAPSHOT_OF_TABLE
  let make = constructors.get(table)
  if (make === undefined) {
    make = rowConstructor(table)
    constructors.set(table, make)
  }
  return make
}

const ROW_OF_TABLE = new WeakMap<TableModel, new () => Record<string, unknown>>()
const SNAPSHOT_OF_TABLE = new WeakMap<TableModel, new () => Record<string, unknown>>()

/**
 * A constructor like `Row`, with its own instance size: room inside the object for every column of
 * `table`. A first row holding them all is made at once and dropped: V8 sizes a constructor's objects
 * by the most properties its first rows held, so a new entity's id assigned at flush (a property added
 * after the others) still fits inside the object.
 */
function rowConstructor(table: TableModel): new () => Record<string, unknown> {
  const TableRow = function TableRow() {} as unknown as new () => Record<string, unknown>
  TableRow.prototype = Row.prototype
  const whole = new TableRow()
  for (const column of table.columns) whole[column.name] = undefined
  return TableRow
}

/** A copy of `values` as a row without prototype (a column may be named `__proto__`). */
export function rowOf(values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const row = emptyRow()
  for (const name of Object.keys(values)) row[name] = values[name]
  return row
}

/**
 * Whether `row` holds exactly the own properties `names` (in any order): then it writes what the row
 * that had `names` writes. Allocates nothing.
 */
export function sameShape(row: Readonly<Record<string, unknown>>, names: readonly string[]): boolean {
  let count = 0
  for (const name in row) {
    if (!Object.hasOwn(row, name)) return false
    count++
  }
  if (count !== names.length) return false
  for (let i = 0; i < names.length; i++) if (!Object.hasOwn(row, names[i]!)) return false
  return true
}
